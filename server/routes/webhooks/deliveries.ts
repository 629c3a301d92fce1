import type { AnyRoute } from '../../http/route.js';

export const webhookDeliveryRoutes: AnyRoute[] = [];
