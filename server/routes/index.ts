import type { AnyRoute } from '../http/route.js';
import { eventRoutes } from './events/events.js';
import { institutionRoutes } from './institution/institution.js';
import { metaRoutes } from './meta/meta.js';

/** Every operation of the public API. The OpenAPI document is generated from this list. */
export const apiRoutes: AnyRoute[] = [...metaRoutes, ...institutionRoutes, ...eventRoutes];
