import { EVENT_TYPES } from '../../events/catalog.js';
import { pollEvents } from '../../events/poll.js';
import { defineRoute } from '../../http/route.js';
import { presentEvent } from '../../presenters/event.js';
import { eventTypesResponse, listEventsQuery, listEventsResponse } from './schema.js';

export const eventRoutes = [
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/events',
    operationId: 'listEvents',
    summary: 'Poll the event stream',
    description: 'Oldest first, strictly after `since`. Store the newest `created_at` you processed and pass it as `since` next time.',
    tag: 'Events',
    scope: 'webhooks:read',
    query: listEventsQuery,
    response: listEventsResponse,
    errors: ['event_pruned'],
    handler: async ({ tenant, query }) => {
      const { items, has_more } = await pollEvents(tenant, query);
      return { items: items.map(presentEvent), has_more };
    },
  }),
  defineRoute({
    caller: 'key',
    method: 'get',
    path: '/events/types',
    operationId: 'listEventTypes',
    summary: 'List event types',
    tag: 'Events',
    scope: 'webhooks:read',
    response: eventTypesResponse,
    handler: async () => ({ items: Object.entries(EVENT_TYPES).map(([type, description]) => ({ type, description, area: type.slice(0, type.indexOf('.')) })) }),
  }),
];
