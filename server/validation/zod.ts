import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Once, before any schema: adds .openapi() so one schema also describes itself in the document.
extendZodWithOpenApi(z);

export { z };
