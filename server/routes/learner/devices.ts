import { listOwnSeats, releaseOwnSeat } from '../../commands/learner/devices.js';
import { defineRoute, type ApiRoute } from '../../http/route.js';
import { presentLearnerDevice } from '../../presenters/learner.js';
import { learnerDeviceList, learnerDeviceSchema, seatParams } from './schema.js';

/** The learner's own device seats (`/app/devices`, learner session): what the learner page lists and frees. */
export const deviceLearnerRoutes: ApiRoute[] = [
  defineRoute({
    caller: 'learner',
    method: 'get',
    path: '/app/devices',
    operationId: 'listLearnerDevices',
    summary: 'Learner: my devices',
    description:
      'The active device seats of the signed-in person (at most 3 per license, across apps), the most recently seen first; ' +
      '`current` marks the seat of this session. A session exchanged without a `device` took no seat, so none is `current`.',
    tag: 'SSO',
    response: learnerDeviceList,
    handler: async ({ learner }) => ({ items: (await listOwnSeats(learner)).map((seat) => presentLearnerDevice(seat, learner.session)) }),
  }),
  defineRoute({
    caller: 'learner',
    method: 'post',
    path: '/app/devices/{seatId}/release',
    operationId: 'releaseLearnerDevice',
    summary: 'Learner: release one of my devices',
    description:
      'Frees the seat (it becomes `revoked`, as a revoke by the school makes it), so another device can sign in; every session on it ends. ' +
      'Releasing the seat of this very session signs it out: its next request is `401 unauthorized`. ' +
      "Another person's seat, or an unknown id: `404 not_found`. Releasing a released seat changes nothing.",
    tag: 'SSO',
    params: seatParams,
    response: learnerDeviceSchema,
    errors: ['not_found'],
    handler: async ({ learner, params }) => presentLearnerDevice(await releaseOwnSeat(learner, params.seatId), learner.session),
  }),
];
