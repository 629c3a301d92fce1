// @tier integration
// @databases sqlite, postgres
// LTI Names and Role Provisioning Services 2.0: a platform written from the 1EdTech NRPS 2.0
// specification (tests/helpers/lti-platform.ts) serves a course's members, paged with
// `Link: <…>; rel="next"`, on 127.0.0.1; the appliance fills the linked exam's group from them,
// on demand (CLI, portal) and at an instructor's launch. What it did is read back through /v1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeApplianceSetting } from '../server/settings/appliance-settings.js';
import { makePerson, makeSchool, requestsAs, startTestAppliance, type TestAppliance, type TestPerson, type TestSchool } from './helpers/appliance.js';
import { cliFails, cliOk, runCliCaptured } from './helpers/cli.js';
import { LTI, LtiPlatform, type LaunchPlan, type NrpsMember } from './helpers/lti-platform.js';
import { expectError, institutionApi, ok, portalRequests, signedInMember } from './helpers/portal.js';
import { waitFor } from './helpers/wait.js';

/** What `lti members sync` prints and the portal answers. */
interface MembersSync {
  run_id: string;
  link_id: string;
  group_id: string | null;
  dry_run: boolean;
  outcome: 'applied' | 'dry_run' | 'held_back' | 'failed' | 'running';
  created: { students: number; faculty: number; groups: number };
  updated: { students: number; faculty: number; groups: number };
  memberships: { added: number; removed: number };
  matched: { subject: number; email: number };
  skipped: number;
  members: number;
  pages: number;
  held_back: boolean;
  reason: string | null;
  trigger: string;
}

let app: TestAppliance;
let lms: LtiPlatform;
let school: TestSchool;
let teacher: TestPerson;
let platformId: string;
let tool: { launch_url: string; jwks_url: string };
let portal: ReturnType<typeof portalRequests>;
const api = requestsAs(() => app);

const learner = (userId: string, extra: Partial<NrpsMember> = {}): NrpsMember => ({ user_id: userId, roles: [LTI.learner], ...extra });

beforeAll(async () => {
  app = await startTestAppliance({
    config: { outbound: { privateHosts: 'all' }, webhooks: { retryScheduleSeconds: [1, 1, 1], sweepSeconds: 1, timeoutMs: 3000 } },
  });
  // The platform is on 127.0.0.1: allowed the way an operator allows a campus LMS (the CLI reads the setting).
  await writeApplianceSetting(app.ctx.db, 'outbound_private_hosts', 'all');
  lms = await LtiPlatform.start();
  school = await makeSchool(app);
  teacher = await makePerson(app, school.key, 'faculty', 'Grace Hopper');
  cliOk(await runCliCaptured(app, 'settings', 'set', 'public_url', app.origin));
  tool = cliOk(await runCliCaptured(app, 'lti', 'tool-config', '--institution', school.inst.id));
  lms.toolJwksUrl = tool.jwks_url;
  const admin = await signedInMember(app, school.inst.id, 'admin');
  portal = portalRequests(
    () => admin,
    () => institutionApi(school.inst.id),
  );
  const platform = ok<{ id: string }>(
    await portal.post('/lti/platforms', {
      name: 'Test LMS',
      issuer: lms.issuer,
      client_id: lms.clientId,
      deployment_ids: [lms.deploymentId],
      auth_url: lms.authUrl,
      token_url: lms.tokenUrl,
      jwks_url: lms.jwksUrl,
      provision_users: true,
    }),
  );
  platformId = platform.id;
});
afterAll(async () => {
  await lms?.close();
  await app?.close();
});

/** A published exam of the teacher, linked to the LMS's resource link `resourceLinkId`. */
async function linkedExam(title: string, resourceLinkId: string): Promise<{ examId: string; linkId: string }> {
  const exam = ok<{ id: string }>(await api.post(school.key, '/exams', { faculty_id: teacher.id, title, app: 'learning', max_score: 10 }));
  ok(await api.post(school.key, `/exams/${exam.id}/publish`));
  const link = ok<{ id: string }>(await portal.post('/lti/links', { platform_id: platformId, resource_link_id: resourceLinkId, exam_id: exam.id }));
  return { examId: exam.id, linkId: link.id };
}

/** What an instructor's launch stores: the context's memberships URL and title (the launch itself is tested below). */
async function offerClassList(resourceLinkId: string, contextId: string, title: string): Promise<void> {
  const [changed] = await app.ctx.db.models.LtiResourceLink.update(
    { memberships_url: lms.membershipsUrl(contextId), context_title: title },
    { where: { platform_id: platformId, resource_link_id: resourceLinkId } },
  );
  expect(changed).toBe(1);
}

const sync = async (resourceLinkId: string, ...flags: string[]) =>
  cliOk<MembersSync>(await runCliCaptured(app, 'lti', 'members', 'sync', '--institution', school.inst.id, '--link', resourceLinkId, ...flags));

async function assignedGroups(examId: string) {
  return ok<{ items: Array<{ group_id: string; name: string; student_count: number }> }>(await api.get(school.key, `/exams/${examId}/assignments`)).items;
}
async function memberIds(groupId: string): Promise<string[]> {
  const group = ok<{ members: Array<{ id: string }> }>(await api.get(school.key, `/groups/${groupId}`));
  return group.members.map((member) => member.id).sort();
}
async function studentNamed(name: string) {
  const page = ok<{ items: Array<{ id: string; full_name: string; status: string }> }>(await api.get(school.key, '/students', { limit: 100 }));
  return page.items.filter((item) => item.full_name === name);
}
const studentTotal = async () => ok<{ total: number }>(await api.get(school.key, '/students', { limit: 1 })).total;

/** Login initiation → the platform's authorization → the form's id_token and state, posted to the launch URL. */
async function launch(plan: LaunchPlan) {
  lms.plan = plan;
  const login = await app.http
    .get('/lti/login')
    .query({ iss: lms.issuer, login_hint: plan.sub, target_link_uri: tool.launch_url, client_id: lms.clientId, lti_deployment_id: lms.deploymentId });
  expect(login.status, JSON.stringify(login.body)).toBe(302);
  const answer = await lms.authorize(login.headers.location as string);
  return app.http.post('/lti/launch').type('form').send({ id_token: answer.id_token, state: answer.state });
}

describe('a class list read page by page fills the exam’s group', () => {
  let ada: TestPerson;
  let bob: TestPerson;
  let exam: { examId: string; linkId: string };
  let groupId: string;

  beforeAll(async () => {
    ada = await makePerson(app, school.key, 'students', 'Ada Lovelace');
    bob = await makePerson(app, school.key, 'students', 'Bob Kahn');
    exam = await linkedExam('Loops quiz', 'rl-course-a');
    // Ada launched once before: her LMS subject is stored (her LMS email is not her login email).
    const launched = await launch({ sub: 'lms-ada', email: ada.login_email, roles: [LTI.learner], resourceLinkId: 'rl-course-a' });
    expect(launched.status, JSON.stringify(launched.body)).toBe(302);
    lms.contexts.set('course-a', {
      id: 'course-a',
      title: 'Course A: Algorithms',
      members: [
        learner('lms-ada', { name: 'Ada Lovelace', email: 'ada@family.example' }),
        learner('lms-bob', { name: 'Bob Kahn', email: bob.login_email }),
        learner('lms-carol', { given_name: 'Carol', family_name: 'Shaw', email: 'carol@family.example' }),
        learner('lms-dan'),
        { user_id: 'lms-grace', roles: [LTI.instructor], name: 'Grace Hopper', email: teacher.login_email },
        { user_id: 'lms-eve', roles: ['Instructor'], name: 'Eve Teacher' },
        learner('lms-mallory', { status: 'Inactive', name: 'Mallory Gone' }),
      ],
    });
    await offerClassList('rl-course-a', 'course-a', 'Course A: Algorithms');
  });

  it('follows rel="next" across 4 pages, matches by LMS subject then by login email, creates the rest, and makes a group for the exam', async () => {
    const before = await studentTotal();
    const requests = lms.membershipRequests.length;
    const result = await sync('rl-course-a');
    expect(result).toMatchObject({
      outcome: 'applied',
      dry_run: false,
      members: 7,
      pages: 4,
      matched: { subject: 1, email: 2 },
      created: { students: 2, faculty: 1, groups: 1 },
      memberships: { added: 4, removed: 0 },
      held_back: false,
      reason: null,
      trigger: 'cli',
    });
    // Four requests, each as NRPS 2.0 asks: the media type, a bearer token granted the NRPS scope.
    const made = lms.membershipRequests.slice(requests);
    expect(made).toHaveLength(4);
    for (const request of made) {
      expect(request.accept).toBe(LTI.nrpsMediaType);
      expect(request.authorization).toMatch(/^Bearer at-/);
    }
    expect(made.map((request) => new URL(request.url).searchParams.get('page'))).toEqual([null, '1', '2', '3']);
    expect(lms.tokenRequests.at(-1)!.scope).toBe(LTI.nrpsScope);

    // Read back as an integration would: the exam has one group, named after the course, with the four learners.
    const groups = await assignedGroups(exam.examId);
    expect(groups).toEqual([expect.objectContaining({ name: 'Course A: Algorithms', student_count: 4 })]);
    groupId = groups[0]!.group_id;
    expect(result.group_id).toBe(groupId);
    const carol = await studentNamed('Carol Shaw');
    expect(carol).toHaveLength(1);
    const dan = await studentNamed('Test LMS user lms-dan');
    expect(dan).toHaveLength(1);
    expect(await memberIds(groupId)).toEqual([ada.id, bob.id, carol[0]!.id, dan[0]!.id].sort());
    expect(await studentTotal()).toBe(before + 2);
    expect(await studentNamed('Mallory Gone')).toHaveLength(0);
    const faculty = ok<{ items: Array<{ full_name: string }> }>(await api.get(school.key, '/faculty', { limit: 100 })).items.map((item) => item.full_name);
    expect(faculty.filter((name) => name === 'Eve Teacher')).toHaveLength(1);
    expect(faculty.filter((name) => name === 'Grace Hopper')).toHaveLength(1);
    // Subjects stored for those matched by email and those created: the next sync finds everyone by subject.
    const again = await sync('rl-course-a');
    expect(again).toMatchObject({
      outcome: 'applied',
      matched: { subject: 6, email: 0 },
      created: { students: 0, faculty: 0, groups: 0 },
      memberships: { added: 0, removed: 0 },
      group_id: groupId,
    });
    expect(await assignedGroups(exam.examId)).toHaveLength(1);
  });

  it('a member the LMS marks Inactive leaves the group and stays a student; a name replaces a placeholder', async () => {
    const context = lms.contexts.get('course-a')!;
    context.members = context.members.map((member) => {
      if (member.user_id === 'lms-bob') return { ...member, status: 'Inactive' as const };
      if (member.user_id === 'lms-dan') return { ...member, name: 'Dan Ingalls' };
      return member;
    });
    const result = await sync('rl-course-a');
    expect(result).toMatchObject({ outcome: 'applied', memberships: { added: 0, removed: 1 }, updated: { students: 1 } });
    expect(await memberIds(groupId)).not.toContain(bob.id);
    expect(await memberIds(groupId)).toHaveLength(3);
    const stillThere = ok<{ id: string; status: string }>(await api.get(school.key, `/students/${bob.id}`));
    expect(stillThere).toMatchObject({ id: bob.id, status: 'active' });
    expect(await studentNamed('Dan Ingalls')).toHaveLength(1);
  });

  it('a dry run changes nothing and answers the plan', async () => {
    lms.contexts.get('course-a')!.members.push(learner('lms-frank', { name: 'Frank Newcomer' }));
    const before = { students: await studentTotal(), members: await memberIds(groupId) };
    const result = await sync('rl-course-a', '--dry-run');
    expect(result).toMatchObject({ outcome: 'dry_run', dry_run: true, created: { students: 1 }, memberships: { added: 1, removed: 0 }, held_back: false });
    expect(await studentTotal()).toBe(before.students);
    expect(await memberIds(groupId)).toEqual(before.members);
    expect(await studentNamed('Frank Newcomer')).toHaveLength(0);
    const runs = ok<{ items: MembersSync[] }>(await portal.get(`/lti/links/${exam.linkId}/members/runs`)).items;
    expect(runs[0]).toMatchObject({ run_id: result.run_id, outcome: 'dry_run' });
  });
});

describe('the guard', () => {
  it('a sync removing most of the group is held back, nothing changed, until confirmed (portal)', async () => {
    const exam = await linkedExam('Guarded quiz', 'rl-course-b');
    const members = ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'].map((id) => learner(`lms-${id}`, { name: `Student ${id.toUpperCase()}` }));
    lms.contexts.set('course-b', { id: 'course-b', title: 'Course B', members });
    await offerClassList('rl-course-b', 'course-b', 'Course B');
    const first = await sync('rl-course-b');
    expect(first).toMatchObject({ outcome: 'applied', created: { students: 6, groups: 1 }, memberships: { added: 6 } });
    const groupId = first.group_id!;

    lms.contexts.get('course-b')!.members = [members[0]!, ...members.slice(1).map((member) => ({ ...member, status: 'Deleted' as const }))];
    const held = await sync('rl-course-b');
    expect(held).toMatchObject({ outcome: 'held_back', held_back: true, memberships: { removed: 5 } });
    expect(held.reason).toMatch(/remove 5 of the 6 members of the group "Course B"/);
    expect(await memberIds(groupId)).toHaveLength(6);

    const dryRun = ok<MembersSync>(await portal.post(`/lti/links/${exam.linkId}/members/sync?dry_run=true`));
    expect(dryRun).toMatchObject({ outcome: 'dry_run', memberships: { removed: 5 } });
    expect(dryRun.reason).toMatch(/would be held back/);

    const confirmed = ok<MembersSync>(await portal.post(`/lti/links/rl-course-b/members/sync?confirm=true`));
    expect(confirmed).toMatchObject({ outcome: 'applied', memberships: { removed: 5 }, trigger: 'portal' });
    expect(await memberIds(groupId)).toHaveLength(1);
    // People removed from the group are still students.
    expect(await studentNamed('Student B2')).toEqual([expect.objectContaining({ status: 'active' })]);
    const runs = ok<{ items: MembersSync[] }>(await portal.get(`/lti/links/${exam.linkId}/members/runs`)).items.map((run) => run.outcome);
    expect(runs).toEqual(['applied', 'dry_run', 'held_back', 'applied']);
  });
});

describe('when the platform refuses', () => {
  it('an expired token or an error page is a failed run in words (not a 500), and the next sync gets a fresh token', async () => {
    const exam = await linkedExam('Refused quiz', 'rl-course-c');
    lms.contexts.set('course-c', { id: 'course-c', title: 'Course C', members: [learner('lms-c1', { name: 'Student C1' })] });
    await offerClassList('rl-course-c', 'course-c', 'Course C');
    expect((await sync('rl-course-c')).outcome).toBe('applied');

    lms.expireTokens();
    const expired = ok<MembersSync>(await portal.post(`/lti/links/${exam.linkId}/members/sync`));
    expect(expired).toMatchObject({ outcome: 'failed', held_back: false });
    expect(expired.reason).toMatch(/HTTP 401.*refused the access token/);

    lms.failMemberships = [503];
    const unavailable = await sync('rl-course-c');
    expect(unavailable.outcome).toBe('failed');
    expect(unavailable.reason).toMatch(/HTTP 503/);

    expect((await sync('rl-course-c')).outcome).toBe('applied');
    const overview = ok<{ links: Array<{ id: string; has_class_list: boolean; last_members_sync: MembersSync | null }> }>(await portal.get('/lti'));
    expect(overview.links.find((link) => link.id === exam.linkId)).toMatchObject({ has_class_list: true, last_members_sync: { outcome: 'applied' } });
  });

  it('a link the LMS offered no class list for is 409 nrps_not_offered; an unknown link 404', async () => {
    const exam = await linkedExam('No list quiz', 'rl-no-list');
    cliFails(await runCliCaptured(app, 'lti', 'members', 'sync', '--institution', school.inst.id, '--link', 'rl-no-list'), 'nrps_not_offered');
    expectError(await portal.post(`/lti/links/${exam.linkId}/members/sync`), 409, 'nrps_not_offered');
    expectError(await portal.post('/lti/links/ltl_nope/members/sync'), 404, 'not_found');
  });
});

describe("an instructor's launch", () => {
  it('stores the class list URL and syncs it in the background; the launch answers at once', async () => {
    const exam = await linkedExam('Launched quiz', 'rl-launch');
    // The platform's id_tokens name the context course-42, "Computer Science 101".
    lms.contexts.set('course-42', {
      id: 'course-42',
      title: 'Computer Science 101',
      members: [learner('lms-l1', { name: 'Launch One' }), learner('lms-l2', { name: 'Launch Two' }), learner('lms-l3', { name: 'Launch Three' })],
    });
    const launched = await launch({
      sub: 'lms-grace',
      email: teacher.login_email,
      roles: [LTI.instructor],
      resourceLinkId: 'rl-launch',
      claims: { [LTI.nrpsClaim]: lms.nrpsClaim('course-42') },
    });
    expect(launched.status, JSON.stringify(launched.body)).toBe(302);

    const run = await waitFor(
      async () => {
        const runs = ok<{ items: MembersSync[] }>(await portal.get(`/lti/links/${exam.linkId}/members/runs`)).items;
        return runs[0] && runs[0].outcome !== 'running' ? runs[0] : null;
      },
      'the class list sync the launch started',
      20_000,
    );
    expect(run).toMatchObject({ outcome: 'applied', trigger: 'launch', created: { students: 3, groups: 1 }, memberships: { added: 3 } });
    const groups = await assignedGroups(exam.examId);
    expect(groups).toEqual([expect.objectContaining({ name: 'Computer Science 101', student_count: 3 })]);

    // A learner's launch starts nothing, and a failing class list never fails an instructor's launch.
    lms.failMemberships = [500];
    const exam2 = await linkedExam('Launched quiz 2', 'rl-launch-2');
    const learnerLaunch = await launch({
      sub: 'lms-l1',
      roles: [LTI.learner],
      resourceLinkId: 'rl-launch-2',
      claims: { [LTI.nrpsClaim]: lms.nrpsClaim('course-42') },
    });
    expect(learnerLaunch.status).toBe(302);
    const second = await launch({
      sub: 'lms-grace',
      email: teacher.login_email,
      roles: [LTI.instructor],
      resourceLinkId: 'rl-launch-2',
      claims: { [LTI.nrpsClaim]: lms.nrpsClaim('course-42') },
    });
    expect(second.status, JSON.stringify(second.body)).toBe(302);
    const failed = await waitFor(
      async () => {
        const runs = ok<{ items: MembersSync[] }>(await portal.get(`/lti/links/${exam2.linkId}/members/runs`)).items;
        return runs[0] && runs[0].outcome !== 'running' ? runs : null;
      },
      'the failed class list sync',
      20_000,
    );
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ outcome: 'failed', trigger: 'launch' });
    expect(failed[0]!.reason).toMatch(/HTTP 500/);
  });
});
