// @tier integration
// @databases sqlite: multipart limits and temp files on disk; a refused upload never reaches the database
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson } from '../server/commands/people/people.js';
import { MAX_UPLOAD_BYTES } from '../server/files/storage.js';
import { newId } from '../server/ids.js';
import { makeInstitution, makeKey, startTestAppliance, type TestAppliance, type TestInstitution, type TestKey } from './helpers/appliance.js';

/** The 50 MB upload limit, enforced while streaming: one upload just over it, one exactly at it. */
describe('upload size limit (50 MB)', () => {
  let app: TestAppliance;
  let inst: TestInstitution;
  let key: TestKey;
  let examId: string;

  const filesIn = (dir: string): string[] => {
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name));
  };

  beforeAll(async () => {
    app = await startTestAppliance();
    inst = await makeInstitution(app);
    key = await makeKey(app, inst, { scopes: ['exams:write'] });
    examId = newId('exm');
    await inst.tenant.inTransaction(async (tx) => {
      const teacher = await createPerson(tx, 'faculty', { full_name: 'Grace Hopper', external_id: null, license_days: 365 });
      await tx.exams.create({
        id: examId,
        faculty_id: teacher.id,
        title: 'Large files',
        description: '',
        exam_type: 'exam',
        app: 'code',
        status: 'draft',
        max_score: null,
        due_date: null,
        time_limit_minutes: null,
        proctoring: {},
        ai_policy: {},
        code_spec: null,
        published_at: null,
        closed_at: null,
      });
    });
  });
  afterAll(() => app.close());

  const upload = (content: Buffer) => app.http.post(`/v1/exams/${examId}/files`).set('Authorization', key.auth).attach('file', content, 'starter.zip');

  it('50 MB + 1 byte: 422 file_too_large, nothing left in DATA_DIR/tmp or uploads', async () => {
    expect(MAX_UPLOAD_BYTES).toBe(50 * 1024 * 1024);
    const res = await upload(Buffer.alloc(MAX_UPLOAD_BYTES + 1, 7));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, error: 'file_too_large' });
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(filesIn(path.join(app.dataDir, 'tmp'))).toEqual([]);
    expect(filesIn(path.join(app.dataDir, 'uploads'))).toEqual([]);
    expect(await inst.tenant.files.count()).toBe(0);
  });

  it('exactly 50 MB is accepted and stored whole', async () => {
    const content = Buffer.alloc(MAX_UPLOAD_BYTES, 7);
    const res = await upload(content);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'starter.zip', size: MAX_UPLOAD_BYTES, sha256: createHash('sha256').update(content).digest('hex') });
    const row = await inst.tenant.files.findById(res.body.data.ref);
    expect(fs.statSync(path.join(app.dataDir, row!.storage_path)).size).toBe(MAX_UPLOAD_BYTES);
    expect(filesIn(path.join(app.dataDir, 'tmp'))).toEqual([]);
    expect(filesIn(path.join(app.dataDir, 'uploads'))).toHaveLength(1);
  });
});
