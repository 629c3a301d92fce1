import type { AnyRoute } from '../../http/route.js';

export const alphaRoutes: AnyRoute[] = [];
