import type { AnyRoute } from '../../http/route.js';

export const fileRoutes: AnyRoute[] = [];
