import type { Database } from '../../db/index.js';
import type { Tenant } from '../../db/tenant.js';
import type { LearnerAuth } from '../learner/auth.js';
import type { ExamApp, ExamRow, ExamType } from '../../models/exam.js';
import type { InstitutionRow } from '../../models/institution.js';
import type { PersonRow } from '../../models/person.js';
import type { SubmissionRow } from '../../models/submission.js';
import { assignGroups } from '../exams/assignments.js';
import { createExam, publishExam } from '../exams/exams.js';
import { recordAiUsage } from '../wallet/ai-usage.js';
import { recordProctoringEvents, releaseHiddenKey, startAttempt, submitAttempt, type ProctoringEventInput } from '../learner/learner.js';
import { creditMerits, setAllowance } from '../wallet/merits.js';
import { exchangeLaunchToken, LAUNCH_TTL_DEFAULT_SECONDS, mintLaunchToken } from '../learner/sso.js';
import { gradeSubmission, RESUBMISSION_SCORE, voidSubmission } from '../exams/submissions.js';
import { attachDemoArchives, type DemoArchives } from './coding-archives.js';
import { GROUPS, STUDENTS, type DemoGroup, type DemoPeople } from './people.js';
import { pick, range, type Rng } from './random.js';

const DAY_MS = 24 * 60 * 60 * 1000;

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
  /** A coding exam's starter, sample tests and hidden tests, uploaded before it is published. */
  archives?: DemoArchives;
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
    description:
      '## Task\n\nWrite `running_total(values)` in `solution.py`: the running totals of a list of numbers, so `[1, 2, 3]` gives `[1, 3, 6]`.\n\n' +
      '## How it is checked\n\n- Run the sample tests with `pytest -q` before you submit.\n- Hidden tests run after you submit; they try cases the samples do not.',
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
    archives: {
      starter: {
        'solution.py': 'def running_total(values):\n    """The running totals of values: [1, 2, 3] gives [1, 3, 6]."""\n    raise NotImplementedError\n',
        'README.md': '# Lists and loops\n\nWrite `running_total(values)` in `solution.py`, then run `pytest -q`.\n',
      },
      sampleTests: {
        'test_sample.py':
          'from solution import running_total\n\n\ndef test_three_values():\n    assert running_total([1, 2, 3]) == [1, 3, 6]\n\n\ndef test_empty():\n    assert running_total([]) == []\n',
      },
      hiddenTests: {
        'test_hidden.py':
          'from solution import running_total\n\n\ndef test_negative_values():\n    assert running_total([5, -2, -3]) == [5, 3, 0]\n\n\ndef test_input_unchanged():\n    values = [1, 1]\n    running_total(values)\n    assert values == [1, 1]\n',
      },
    },
    owner: 1,
    group: 1,
    flow: 'create-then-publish',
    absent: [13],
    graded: () => true,
    answers: (_rng, fraction) => ({
      files: {
        'solution.py':
          'def running_total(values):\n    total = 0\n    out = []\n    for value in values:\n        total += value\n        out.append(total)\n    return out\n',
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

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

function feedbackFor(fraction: number): string {
  if (fraction >= 0.9) return 'Excellent work: clear, complete and careful.';
  if (fraction >= 0.75) return 'Good work; a few details to tighten, see the comments.';
  if (fraction >= 0.6) return 'A fair attempt. Review the worked examples and ask in class about the parts you missed.';
  return 'Let us go through this together in office hours; the basics need another look.';
}

/** A launch into the exam, exchanged on the student's own device: the learner session the apps hold. */
/** Merit credits each demo student starts with: more than the AI help of every demo exam costs. */
const AI_CREDIT_CENTS = 500;

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

/**
 * The exams, reaching their students in each of the three ways the API offers, then the students'
 * attempts and submissions and the teachers' grading, with a few outcomes in every state.
 */
export async function seedExamsAndSubmissions(
  db: Database,
  tenant: Tenant,
  institution: InstitutionRow,
  people: DemoPeople,
  rng: Rng,
  dataDir: string,
): Promise<void> {
  const { student, teacher, groupIds } = people;
  // Each student has a steady level; each exam adds its own noise around it.
  const ability = STUDENTS.map(() => 0.45 + 0.25 * (rng() + rng()));
  // Each student gets merit credits to pay for AI help, which the exams below spend through the
  // same checked path a learner app uses (the exam's ai_policy, the wallet).
  await setAllowance(db, institution.id, STUDENTS.length * AI_CREDIT_CENTS);
  for (const index of STUDENTS.keys()) {
    await creditMerits(tenant, {
      email: student(index).login_email,
      amount_cents: AI_CREDIT_CENTS,
      reason: 'Term credit for AI help',
      ref: `demo-ai-credit-${index}`,
    });
  }

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
      if (spec.archives) exam = await attachDemoArchives(tenant, dataDir, exam, spec.archives);
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
      // The coding app unlocks the hidden tests during the attempt, as it would for real.
      if (spec.archives) await releaseHiddenKey(learner, attempt.id);
      if (examIndex === IN_PROGRESS.exam && index === IN_PROGRESS.student) continue;
      const interactions = spec.ai_policy.allowed ? Math.floor(rng() * (spec.ai_policy.max_interactions + 1)) : 0;
      if (interactions > 0) {
        await recordAiUsage(learner, { attempt_id: attempt.id, interactions, cost_cents: interactions * (2 + Math.floor(rng() * 3)) });
      }
      const submission = await submitAttempt(learner, attempt.id, { answers: spec.answers(rng, fraction) });
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
}
