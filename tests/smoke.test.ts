// @tier integration
// @databases sqlite, postgres
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance } from './helpers/appliance.js';

describe('smoke', () => {
  let app: TestAppliance;
  beforeAll(async () => {
    app = await startTestAppliance();
  });
  afterAll(() => app.close());

  it('serves /v1/me to a key', async () => {
    const inst = await makeInstitution(app);
    const key = await makeKey(app, inst, { scopes: ['students:read'] });
    const res = await app.http.get('/v1/me').set('Authorization', key.auth);
    expect(res.status).toBe(200);
    expect(res.body.data.institution.id).toBe(inst.id);
  });
});
