import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../errors.js';
import { defineRoute, RawResponse, type AnyRoute } from '../../http/route.js';
import { portalDir } from '../../paths.js';
import { z } from '../../validation/zod.js';
import { framedByPlatform } from '../lti/framing.js';

/**
 * The learner page (`/launch?token=…`), a view of the portal app that the SSO and LTI launches
 * open. Never cached, as the URL holds a one-time token. After an LTI launch (`lti=`) its platform
 * may frame it (server/routes/lti/framing.ts, which runs before helmet sets the policy).
 */
export const launchPageRoutes: AnyRoute[] = [
  defineRoute({
    caller: 'anyone',
    method: 'get',
    path: '/launch',
    operationId: 'learnerLaunchPage',
    summary: "The learner page a launch token opens (the portal app's page)",
    tag: 'Learner',
    // The token and the platform are read by the page's script and by the framing check.
    query: z.looseObject({}),
    produces: 'text/html',
    response: z.string().openapi({ type: 'string', description: 'The portal app, which shows the learner side.' }),
    handler: async () => {
      const page = path.join(portalDir(), 'index.html');
      if (!fs.existsSync(page)) throw new AppError('not_found', 'This appliance was built without its portal.');
      return new RawResponse((res) => {
        if (framedByPlatform(res)) res.removeHeader('X-Frame-Options');
        res.set('Cache-Control', 'no-store').sendFile(page);
      });
    },
  }),
];
