import { Op } from 'sequelize';
import type { Tenant } from '../../db/tenant.js';
import { notFound } from '../../errors.js';
import type { SubmissionRow } from '../../models/submission.js';

// Where a grade stands in each place it goes: the LMS (AGS score posts) and the SIS (OneRoster
// gradebook result posts), next to the grade here. Read from the two queues' rows, never from
// the LMS or the SIS themselves: what was sent, and whether it was taken.

export type StandingState = 'delivered' | 'queued' | 'failed';

export interface DestinationStanding {
  destination: 'lms' | 'sis';
  /** The platform's name, or the SIS class's group. */
  name: string;
  /** The AGS line item URL, or the gradebook line item's sourcedId. */
  target: string;
  /** The last score the destination took; null: none yet. */
  sent_score: number | null;
  sent_at: Date | null;
  /** The newest score queued for it (the one `state` is about). */
  latest_score: number | null;
  state: StandingState;
  /** Why the newest post failed last, while it waits or after it gave up. */
  error: string | null;
  next_attempt_at: Date | null;
}

export interface GradeStanding {
  submission: SubmissionRow;
  destinations: DestinationStanding[];
  /** In words: "LMS has 7, SIS has 7, here 8: queued". */
  summary: string;
}

/** Submissions of one exam looked at together, at most. */
export const EXAM_STANDINGS_LIMIT = 500;

interface QueuedPost {
  status: string;
  score: number | null;
  created_at: Date;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  error: string | null;
}

const STATE_OF: Record<string, StandingState> = { succeeded: 'delivered', pending: 'queued', delivering: 'queued', dead: 'failed' };
const scoreOf = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** One destination from its posts, oldest first; superseded posts were never sent and are left out. */
function standingOf(destination: 'lms' | 'sis', name: string, target: string, posts: QueuedPost[]): DestinationStanding | null {
  const live = posts.filter((post) => post.status !== 'superseded');
  const newest = live.at(-1);
  if (!newest) return null;
  const delivered = live.filter((post) => post.status === 'succeeded').at(-1);
  return {
    destination,
    name,
    target,
    sent_score: delivered?.score ?? null,
    sent_at: delivered ? (delivered.last_attempt_at ?? delivered.created_at) : null,
    latest_score: newest.score,
    state: STATE_OF[newest.status] ?? 'queued',
    error: newest.status === 'succeeded' ? null : newest.error,
    next_attempt_at: newest.status === 'pending' ? newest.next_attempt_at : null,
  };
}

const number = (value: number | null) => (value === null ? 'nothing yet' : String(value));

/** "LMS has 7, SIS has 7, here 8: queued"; a place named twice (two LMS links, two classes) says which. */
export function describeStanding(score: number | null, destinations: readonly DestinationStanding[]): string {
  const here = score === null ? 'no grade here' : `here ${score}`;
  if (destinations.length === 0) return `Not sent to an LMS or a SIS; ${here}.`;
  const label = (entry: DestinationStanding) => {
    const kind = entry.destination === 'lms' ? 'LMS' : 'SIS';
    return destinations.filter((other) => other.destination === entry.destination).length > 1 ? `${kind} (${entry.name})` : kind;
  };
  const parts = destinations.map((entry) => `${label(entry)} has ${number(entry.sent_score)}`);
  const state = destinations.some((entry) => entry.state === 'failed')
    ? 'failed'
    : destinations.some((entry) => entry.state === 'queued')
      ? 'queued'
      : 'delivered';
  return `${parts.join(', ')}, ${here}: ${state}`;
}

const oldestFirst = <T extends { created_at: Date; id: string }>(rows: T[]) =>
  rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id));

/** Where each of these submissions' grades stands in the LMS and the SIS. */
export async function gradeStandings(tenant: Tenant, submissions: SubmissionRow[]): Promise<GradeStanding[]> {
  if (submissions.length === 0) return [];
  const ids = submissions.map((submission) => submission.id);
  const [scorePosts, gradebookPosts] = await Promise.all([
    tenant.ltiScorePosts.findAll({ where: { submission_id: { [Op.in]: ids } } }),
    tenant.onerosterGradebookPosts.findAll({ where: { submission_id: { [Op.in]: ids } } }),
  ]);
  const platformIds = [...new Set(scorePosts.map((post) => post.platform_id))];
  const platforms =
    platformIds.length > 0 ? await tenant.ltiPlatforms.findAll({ attributes: ['id', 'name', 'issuer'], where: { id: { [Op.in]: platformIds } } }) : [];
  const platformName = new Map(platforms.map((platform) => [platform.id, platform.name || platform.issuer]));
  const classIds = [...new Set(gradebookPosts.map((post) => String((post.payload.class as { sourcedId?: unknown } | undefined)?.sourcedId ?? '')))];
  const classLinks = classIds.length > 0 ? await tenant.onerosterLinks.findAll({ where: { kind: 'class', sourced_id: { [Op.in]: classIds } } }) : [];
  const groups =
    classLinks.length > 0
      ? await tenant.groups.findAll({ attributes: ['id', 'name'], where: { id: { [Op.in]: classLinks.map((link) => link.target_id) } } })
      : [];
  const groupName = new Map(groups.map((group) => [group.id, group.name]));
  const className = new Map(classLinks.map((link) => [link.sourced_id, groupName.get(link.target_id) ?? link.sourced_id]));

  return submissions.map((submission) => {
    const destinations: DestinationStanding[] = [];
    const lms = new Map<string, { platform: string; url: string; posts: QueuedPost[] }>();
    for (const post of oldestFirst(scorePosts.filter((row) => row.submission_id === submission.id))) {
      const key = `${post.platform_id} ${post.line_item_url}`;
      const entry = lms.get(key) ?? { platform: post.platform_id, url: post.line_item_url, posts: [] };
      entry.posts.push({ ...post.get({ plain: true }), score: scoreOf(post.payload.scoreGiven) });
      lms.set(key, entry);
    }
    for (const entry of lms.values()) {
      const standing = standingOf('lms', platformName.get(entry.platform) ?? 'LMS', entry.url, entry.posts);
      if (standing) destinations.push(standing);
    }
    const sis = new Map<string, { className: string; lineItem: string; posts: QueuedPost[] }>();
    for (const post of oldestFirst(gradebookPosts.filter((row) => row.submission_id === submission.id))) {
      const classId = String((post.payload.class as { sourcedId?: unknown } | undefined)?.sourcedId ?? '');
      const entry = sis.get(post.result_sourced_id) ?? { className: className.get(classId) ?? classId, lineItem: post.line_item_sourced_id, posts: [] };
      entry.posts.push({ ...post.get({ plain: true }), score: scoreOf(post.payload.score) });
      sis.set(post.result_sourced_id, entry);
    }
    for (const entry of sis.values()) {
      const standing = standingOf('sis', entry.className, entry.lineItem, entry.posts);
      if (standing) destinations.push(standing);
    }
    const score = submission.score === null ? null : Number(submission.score);
    return { submission, destinations, summary: describeStanding(score, destinations) };
  });
}

export async function submissionGradeStanding(tenant: Tenant, submissionId: string): Promise<GradeStanding> {
  const submission = await tenant.submissions.findById(submissionId);
  if (!submission) throw notFound('submission');
  const [standing] = await gradeStandings(tenant, [submission]);
  return standing!;
}

/** Every submission of the exam but voided ones, oldest first, up to EXAM_STANDINGS_LIMIT. */
export async function examGradeStandings(tenant: Tenant, examId: string): Promise<GradeStanding[]> {
  const exam = await tenant.exams.findById(examId, { attributes: ['id'] });
  if (!exam) throw notFound('exam');
  const submissions = await tenant.submissions.findAll({
    where: { exam_id: examId, status: { [Op.ne]: 'voided' } },
    order: [
      ['submitted_at', 'ASC'],
      ['id', 'ASC'],
    ],
    limit: EXAM_STANDINGS_LIMIT,
  });
  return gradeStandings(tenant, submissions);
}
