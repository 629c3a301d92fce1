import { Op } from 'sequelize';
import type { Database } from '../db/index.js';
import { Tenant } from '../db/tenant.js';
import type { LearnerAuth } from '../http/session-auth.js';
import { openBody, openRecipient } from '../mail/outbox.js';
import type { ExamApp, ExamRow, ExamType } from '../models/exam.js';
import type { GuardianType } from '../models/guardian.js';
import type { InstitutionRow } from '../models/institution.js';
import type { PersonRow } from '../models/person.js';
import type { SubmissionRow } from '../models/submission.js';
import { createApiKey } from './api-keys.js';
import { createEndpoint, updateEndpoint } from './webhook-endpoints.js';
import { assignGroups, createExam, publishExam } from './exams.js';
import { addGroupMembers, createGroup } from './groups.js';
import { acceptGuardianInvite, createGuardianLink } from './guardians.js';
import { createInstitution } from './institutions.js';
import { recordProctoringEvents, startAttempt, submitAttempt, type ProctoringEventInput } from './learner.js';
import { createPerson } from './people.js';
import { exchangeLaunchToken, LAUNCH_TTL_DEFAULT_SECONDS, mintLaunchToken } from './sso.js';
import { createStudent } from './students.js';
import { gradeSubmission, RESUBMISSION_SCORE, voidSubmission } from './submissions.js';

/** The demo's webhook receiver: this computer's discard port, never a host elsewhere. */
const DEMO_RECEIVER_URL = 'http://127.0.0.1:9/campusbridge-demo';

/**
 * `demo seed`: a new, approved institution that looks lived in, built only through the commands
 * the API uses, so every row has its event and the event stream reads like a real term. Each run
 * makes another institution ("Demo Academy", "Demo Academy 2", …) and never touches existing data.
 * Names, groups, scores and outcomes are fixed; only ids, keys and timestamps differ between runs.
 */

export const DEMO_INSTITUTION_NAME = 'Demo Academy';
const LICENSE_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

interface DemoPerson {
  full_name: string;
  external_id?: string;
  personal_email?: string;
}

const FACULTY: readonly DemoPerson[] = [
  { full_name: 'Miriam Okafor', external_id: 'T-101' },
  { full_name: 'Daniel Brennan', external_id: 'T-102' },
  { full_name: 'Priya Raman', external_id: 'T-103' },
];

const STUDENTS: readonly DemoPerson[] = [
  { full_name: 'Amara Nwosu', external_id: 'S-2401', personal_email: 'amara.nwosu@example.org' },
  { full_name: 'Lucas Ferreira', external_id: 'S-2402' },
  { full_name: 'Sofia Lindqvist', external_id: 'S-2403' },
  { full_name: 'Kenji Watanabe', personal_email: 'kenji.w@example.org' },
  { full_name: 'Isabella Rossi', external_id: 'S-2405' },
  { full_name: 'Mateo García', external_id: 'S-2406' },
  { full_name: 'Chloé Dubois', external_id: 'S-2407', personal_email: 'chloe.dubois@example.org' },
  { full_name: 'Noah Schmidt' },
  { full_name: 'Aisha Rahman', external_id: 'S-2409' },
  { full_name: 'Oliver Bennett', external_id: 'S-2410', personal_email: 'oliver.bennett@example.org' },
  { full_name: 'Zara Ahmed', external_id: 'S-2411' },
  { full_name: 'Ethan Kowalski' },
  { full_name: 'Mei Lin Chen', external_id: 'S-2413', personal_email: 'meilin.chen@example.org' },
  { full_name: 'Samuel Osei', external_id: 'S-2414' },
  { full_name: 'Hannah Müller', external_id: 'S-2415' },
  { full_name: 'Diego Hernández', personal_email: 'diego.hernandez@example.org' },
  { full_name: 'Leila Haddad', external_id: 'S-2417' },
  { full_name: "Finn O'Connor", external_id: 'S-2418' },
  { full_name: 'Ana Popescu', external_id: 'S-2419', personal_email: 'ana.popescu@example.org' },
  { full_name: 'Jonah Goldberg' },
  { full_name: 'Nadia Petrova', external_id: 'S-2421' },
  { full_name: 'Tomás Silva', external_id: 'S-2422' },
  { full_name: 'Yuki Tanaka', personal_email: 'yuki.tanaka@example.org' },
  { full_name: 'Emma Johansson', external_id: 'S-2424' },
];

interface DemoGroup {
  name: string;
  description: string;
  owner: number;
  /** Indexes into STUDENTS: members at creation. */
  members: readonly number[];
  /** Members who join later (a `group.updated` in the stream). */
  joinLater?: readonly number[];
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

const GROUPS: readonly DemoGroup[] = [
  { name: 'Physics 101 – Section A', description: 'Mechanics and measurement, Tuesdays and Thursdays.', owner: 0, members: range(0, 9) },
  { name: 'Introduction to Programming', description: 'Python from the first loop to small projects.', owner: 1, members: range(8, 17) },
  { name: 'World History – Year 10', description: 'Revolutions, industry and empire, 1750–1914.', owner: 2, members: range(16, 23), joinLater: [2, 5] },
];

interface DemoGuardian {
  student: number;
  guardian_email: string;
  guardian_name: string;
  guardian_type: GuardianType;
  is_primary: boolean;
  /** Accepted through the link in the invitation mail, as the guardian would. */
  accepts: boolean;
}

const GUARDIANS: readonly DemoGuardian[] = [
  { student: 0, guardian_email: 'ngozi.nwosu@example.org', guardian_name: 'Ngozi Nwosu', guardian_type: 'mother', is_primary: true, accepts: true },
  { student: 4, guardian_email: 'marco.rossi@example.org', guardian_name: 'Marco Rossi', guardian_type: 'father', is_primary: true, accepts: false },
  { student: 12, guardian_email: 'wei.chen@example.org', guardian_name: 'Wei Chen', guardian_type: 'guardian', is_primary: false, accepts: false },
];

type Rng = () => number;

interface DemoExam {
  title: string;
  description: string;
  exam_type: ExamType;
  app: ExamApp;
  max_score: number;
  due_in_days: number;
  time_limit_minutes: number | null;
  proctoring: { camera: boolean; screen: boolean };
  ai_policy: { allowed: boolean; model_tier: string; max_interactions: number };
  code_spec?: Record<string, unknown>;
  owner: number;
  group: number;
  /** How the exam reaches its students: the three ways the API offers. */
  flow: 'create-published' | 'create-then-publish' | 'assign-then-publish';
  /** Students of the group who never open it. */
  absent: readonly number[];
  /** Which submissions a teacher has graded so far (by order of submission). */
  graded: (position: number) => boolean;
  answers: (rng: Rng, fraction: number) => unknown;
}

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;

const EXAMS: readonly DemoExam[] = [
  {
    title: 'Mechanics – Unit 1 Quiz',
    description: "Newton's laws, free fall and friction. Eight questions, calculators allowed.",
    exam_type: 'quiz',
    app: 'learning',
    max_score: 20,
    due_in_days: 2,
    time_limit_minutes: 30,
    proctoring: { camera: true, screen: true },
    ai_policy: { allowed: false, model_tier: 'standard', max_interactions: 0 },
    owner: 0,
    group: 0,
    flow: 'create-published',
    absent: [2],
    graded: () => true,
    answers: (rng) => Object.fromEntries(range(1, 8).map((n) => [`q${n}`, pick(rng, ['A', 'B', 'C', 'D'])])),
  },
  {
    title: 'Kinematics Lab Report',
    description: 'Measure g with the drop-timer kit and write up method, data, uncertainty and conclusion.',
    exam_type: 'assignment',
    app: 'learning',
    max_score: 100,
    due_in_days: 7,
    time_limit_minutes: null,
    proctoring: { camera: false, screen: false },
    ai_policy: { allowed: true, model_tier: 'standard', max_interactions: 20 },
    owner: 0,
    group: 0,
    flow: 'create-published',
    absent: [7],
    graded: (position) => position % 3 !== 2,
    answers: (rng) => {
      const g = (9.55 + rng() * 0.4).toFixed(2);
      const drops = 10 + Math.floor(rng() * 15);
      return {
        text: `We timed ${drops} drops from 1.20 m and found g = ${g} m/s² (±0.15). Air resistance and reaction time explain most of the gap to 9.81 m/s².`,
        word_count: 650 + Math.floor(rng() * 700),
      };
    },
  },
  {
    title: 'Python Basics: Lists and Loops',
    description: 'Write running_total(values) and pass the sample tests; hidden tests are run after submission.',
    exam_type: 'exam',
    app: 'code',
    max_score: 100,
    due_in_days: 5,
    time_limit_minutes: 90,
    proctoring: { camera: false, screen: true },
    ai_policy: { allowed: true, model_tier: 'standard', max_interactions: 10 },
    code_spec: {
      toolchain: 'python-3.12',
      commands: { run: 'python solution.py', test: ['pytest -q'] },
      ai_policy: { allowed: true, model_tier: 'standard', max_interactions: 10 },
    },
    owner: 1,
    group: 1,
    flow: 'create-then-publish',
    absent: [13],
    graded: () => true,
    answers: (_rng, fraction) => ({
      files: {
        'solution.py': 'def running_total(values):\n    total = 0\n    out = []\n    for value in values:\n        total += value\n        out.append(total)\n    return out\n',
      },
      tests: { passed: Math.round(fraction * 12), total: 12 },
    }),
  },
  {
    title: 'The Industrial Revolution – Essay',
    description: 'Why did industrialisation begin in Britain? 800 to 1,200 words, with at least three sources.',
    exam_type: 'homework',
    app: 'learning',
    max_score: 50,
    due_in_days: 10,
    time_limit_minutes: null,
    proctoring: { camera: false, screen: false },
    ai_policy: { allowed: false, model_tier: 'standard', max_interactions: 0 },
    owner: 2,
    group: 2,
    flow: 'assign-then-publish',
    absent: [19, 21],
    graded: (position) => position < 3,
    answers: (rng) => ({
      text: pick(rng, [
        'Coal close to the surface, rivers and canals for transport, and a banking system willing to lend gave Britain a head start.',
        'Cheap energy and expensive labour made machines worth building in Britain before anywhere else.',
        'Colonial trade and a growing home market created demand that cottage industry could not meet.',
      ]),
      word_count: 800 + Math.floor(rng() * 400),
      sources: 3 + Math.floor(rng() * 3),
    }),
  },
];

/** Outcomes that make the lists and filters show every state. */
const VOIDED = { exam: 0, student: 6, reason: 'Left the exam window repeatedly; a supervised retake was arranged.' };
const RESUBMISSION = { exam: 1, student: 3, feedback: 'Please add the data table and the uncertainty analysis, then submit again.' };
/** Started, never submitted: the attempt counts and the submission list does not. */
const IN_PROGRESS = { exam: 2, student: 11 };

/** mulberry32: a small seeded generator, so every run tells the same story. */
function seededRandom(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

function feedbackFor(fraction: number): string {
  if (fraction >= 0.9) return 'Excellent work: clear, complete and careful.';
  if (fraction >= 0.75) return 'Good work; a few details to tighten, see the comments.';
  if (fraction >= 0.6) return 'A fair attempt. Review the worked examples and ask in class about the parts you missed.';
  return 'Let us go through this together in office hours; the basics need another look.';
}

/** "Demo Academy", then "Demo Academy 2", … : the first name no institution has yet. */
async function nextDemoName(db: Database): Promise<string> {
  const rows = await db.models.Institution.findAll({ attributes: ['name'], where: { name: { [Op.like]: `${DEMO_INSTITUTION_NAME}%` } } });
  const taken = new Set(rows.map((row) => row.name));
  for (let n = 1; ; n += 1) {
    const candidate = n === 1 ? DEMO_INSTITUTION_NAME : `${DEMO_INSTITUTION_NAME} ${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** What a guardian does: open the link of the invitation mail (read from the outbox, where it waits). */
async function acceptInvitationFromMail(db: Database, tenant: Tenant, guardianEmail: string): Promise<void> {
  const mails = await tenant.mailOutbox.findAll({ where: { kind: 'guardian_invite' }, order: [['created_at', 'DESC']] });
  const mail = mails.find((row) => openRecipient(db, row) === guardianEmail);
  const token = mail ? /[?&]token=([A-Za-z0-9]+)/.exec(openBody(db, mail) ?? '')?.[1] : undefined;
  if (!token) throw new Error(`demo seed: no invitation mail for ${guardianEmail}`);
  if (!(await acceptGuardianInvite(db, token))) throw new Error(`demo seed: the invitation of ${guardianEmail} was refused`);
}

/** A launch into the exam, exchanged on the student's own device: the learner session the apps hold. */
async function launchInto(db: Database, tenant: Tenant, institution: InstitutionRow, student: PersonRow, index: number, exam: ExamRow): Promise<LearnerAuth> {
  const { token } = await mintLaunchToken(tenant, {
    email: student.login_email,
    app: exam.app,
    redirect: `exam:${exam.id}`,
    ttl_seconds: LAUNCH_TTL_DEFAULT_SECONDS,
  });
  const firstName = student.full_name.split(' ')[0] ?? student.full_name;
  const exchanged = await exchangeLaunchToken(db, { token, device: { id: `demo-device-${index + 1}`, name: `${firstName}'s laptop` } });
  return { kind: 'session', session: exchanged.session, person: exchanged.person, institution, tenant };
}

function proctoringEventsFor(rng: Rng, forcedFocusLosses: number | null, recorderError: boolean): ProctoringEventInput[] {
  const roll = rng();
  const focusLosses = forcedFocusLosses ?? (roll < 0.55 ? 0 : roll < 0.85 ? 1 + Math.floor(rng() * 2) : 3 + Math.floor(rng() * 2));
  const events: ProctoringEventInput[] = range(1, focusLosses).map(() => ({
    type: 'focus_lost',
    at: new Date(),
    detail: { duration_ms: 1500 + Math.floor(rng() * 20_000) },
  }));
  if (recorderError) events.push({ type: 'recorder_error', at: new Date(), detail: { message: 'Camera disconnected; recording resumed.' } });
  return events;
}

export interface DemoSeed {
  institution: InstitutionRow;
  /** The full key, every scope: shown once, never stored. */
  key: string;
}

export interface DemoSeedOptions {
  /** Base of the links in the mails the demo queues (guardian invitations). */
  portalUrl: string;
}

/**
 * Builds the demo institution step by step, each step its own command and transaction (the launch
 * exchange and the guardian acceptance open their own, as they do for real callers). Webhook
 * deliveries are not made up: they follow from these events once an endpoint is registered.
 */
export async function seedDemo(db: Database, options: DemoSeedOptions): Promise<DemoSeed> {
  const rng = seededRandom(20_240_901);
  const institution = await createInstitution(db, { name: await nextDemoName(db), approve: true });
  const tenant = new Tenant(db, institution.id);

  // A paused receiver, so every event below leaves a queued delivery in the webhook log. It points
  // at this computer's discard port and is paused: nothing is sent unless someone resumes it, and
  // even then only with WEBHOOK_ALLOW_PRIVATE_HOSTS=1. Give it your LMS's URL to receive the events.
  const { endpoint } = await createEndpoint(
    tenant,
    { url: DEMO_RECEIVER_URL, description: 'Demo LMS receiver (paused): set your LMS URL and resume', events: ['*'] },
    { allowPrivate: true },
  );
  await updateEndpoint(tenant, endpoint.id, { status: 'paused' }, { allowPrivate: true });

  const faculty: PersonRow[] = [];
  for (const person of FACULTY) {
    faculty.push(
      await tenant.inTransaction((tx) =>
        createPerson(tx, 'faculty', { full_name: person.full_name, external_id: person.external_id ?? null, license_days: LICENSE_DAYS }),
      ),
    );
  }
  const students: PersonRow[] = [];
  for (const person of STUDENTS) {
    students.push(
      await createStudent(tenant, {
        full_name: person.full_name,
        student_id: person.external_id ?? null,
        personal_email: person.personal_email ?? null,
        license_days: LICENSE_DAYS,
      }),
    );
  }
  const student = (index: number) => students[index] as PersonRow;
  const teacher = (index: number) => faculty[index] as PersonRow;

  const groupIds: string[] = [];
  for (const group of GROUPS) {
    const { group: row } = await createGroup(tenant, {
      name: group.name,
      description: group.description,
      faculty_id: teacher(group.owner).id,
      student_ids: group.members.map((index) => student(index).id),
    });
    if (group.joinLater) await addGroupMembers(tenant, row.id, group.joinLater.map((index) => student(index).id));
    groupIds.push(row.id);
  }

  // Before the exams, so the verified guardian is told of the assignments too.
  for (const guardian of GUARDIANS) {
    await createGuardianLink(
      tenant,
      {
        student_id: student(guardian.student).id,
        guardian_email: guardian.guardian_email,
        guardian_name: guardian.guardian_name,
        guardian_type: guardian.guardian_type,
        is_primary: guardian.is_primary,
      },
      { portalUrl: options.portalUrl },
    );
    if (guardian.accepts) await acceptInvitationFromMail(db, tenant, guardian.guardian_email);
  }

  // Each student has a steady level; each exam adds its own noise around it.
  const ability = STUDENTS.map(() => 0.45 + 0.25 * (rng() + rng()));

  for (const [examIndex, spec] of EXAMS.entries()) {
    const groupId = groupIds[spec.group] as string;
    const input = {
      faculty_id: teacher(spec.owner).id,
      title: spec.title,
      description: spec.description,
      exam_type: spec.exam_type,
      app: spec.app,
      max_score: spec.max_score,
      due_date: new Date(Date.now() + spec.due_in_days * DAY_MS).toISOString(),
      time_limit_minutes: spec.time_limit_minutes,
      proctoring: spec.proctoring,
      ai_policy: spec.ai_policy,
      code_spec: spec.code_spec ?? null,
    };
    let exam: ExamRow;
    if (spec.flow === 'create-published') {
      exam = await createExam(tenant, { ...input, publish: true, group_ids: [groupId] });
    } else if (spec.flow === 'create-then-publish') {
      exam = await createExam(tenant, { ...input, publish: false, group_ids: [groupId] });
      exam = await publishExam(tenant, exam.id);
    } else {
      exam = await createExam(tenant, { ...input, publish: false });
      await assignGroups(tenant, exam.id, [groupId]);
      exam = await publishExam(tenant, exam.id);
    }

    const group = GROUPS[spec.group] as DemoGroup;
    const takers = [...group.members, ...(group.joinLater ?? [])].filter((index) => !spec.absent.includes(index));
    const submitted: Array<{ index: number; submission: SubmissionRow; fraction: number }> = [];
    for (const index of takers) {
      const fraction = clamp((ability[index] as number) + (rng() - 0.5) * 0.24, 0.3, 1);
      const learner = await launchInto(db, tenant, institution, student(index), index, exam);
      const attempt = await startAttempt(learner, exam.id);
      const isVoided = examIndex === VOIDED.exam && index === VOIDED.student;
      const events = proctoringEventsFor(rng, isVoided ? 6 : null, spec.proctoring.camera && index === 4);
      if (events.length > 0) await recordProctoringEvents(learner, attempt.id, events);
      if (examIndex === IN_PROGRESS.exam && index === IN_PROGRESS.student) continue;
      const interactions = spec.ai_policy.allowed ? Math.floor(rng() * (spec.ai_policy.max_interactions + 1)) : 0;
      const submission = await submitAttempt(learner, attempt.id, {
        answers: spec.answers(rng, fraction),
        ai_usage: { interactions, cost_cents: interactions * (2 + Math.floor(rng() * 3)) },
      });
      submitted.push({ index, submission, fraction });
    }

    const grader = teacher(spec.owner).login_email;
    for (const [position, { index, submission, fraction }] of submitted.entries()) {
      if (examIndex === VOIDED.exam && index === VOIDED.student) {
        await voidSubmission(tenant, submission.id, VOIDED.reason);
      } else if (examIndex === RESUBMISSION.exam && index === RESUBMISSION.student) {
        await gradeSubmission(tenant, submission.id, { score: RESUBMISSION_SCORE, feedback: RESUBMISSION.feedback, graded_by: grader });
      } else if (spec.graded(position)) {
        const score = Math.round(fraction * spec.max_score);
        await gradeSubmission(tenant, submission.id, { score, feedback: feedbackFor(fraction), graded_by: grader });
      }
    }
  }

  const { key } = await createApiKey(tenant, { name: 'Demo key (all scopes)', scopes: ['all'] });
  return { institution, key };
}
