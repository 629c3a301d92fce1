import type { OpenApiDocument } from '../../http/openapi.js';
import { defineRoute, RawResponse, type OpenRoute } from '../../http/route.js';
import { z } from '../../validation/zod.js';

/**
 * `GET /openapi.json` of a mount: the OpenAPI 3.1 document of its operations, this one included,
 * built at the first request (megabytes an appliance rarely needs) and kept. No credentials: a
 * client generator or the reference page reads it before it has a key or a session.
 */
export function openApiDocumentRoute(document: () => OpenApiDocument, audience: 'api' | 'portal'): OpenRoute {
  return defineRoute({
    caller: 'anyone',
    method: 'get',
    path: '/openapi.json',
    operationId: audience === 'api' ? 'getOpenApiDocument' : 'getPortalOpenApiDocument',
    summary: audience === 'api' ? 'This OpenAPI document' : "The portal's OpenAPI document",
    description: 'OpenAPI 3.1: every operation with its parameters, bodies, answers and error codes. Needs no key or session.',
    tag: 'Meta',
    query: z.looseObject({}),
    // Plain JSON, as generators and the reference page expect: the document, not the envelope.
    produces: 'application/json',
    response: z.unknown().openapi({
      type: 'object',
      description: 'The OpenAPI document.',
      example: { openapi: '3.1.0', info: { title: 'CampusBridge API', version: '2026-09-14' }, paths: { '/students': {} } },
    }),
    handler: async () => {
      const body = document();
      return new RawResponse((res) => {
        res.json(body);
      });
    },
  });
}
