import type { AnyRoute } from '../../http/route.js';

export const couponRoutes: AnyRoute[] = [];
