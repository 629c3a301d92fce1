import type { WeeklySummary } from '../models/guardian.js';
import { escapeHtml } from '../html.js';
import { givenName } from './names.js';

// The weekly report as mail: a plain-text part and an HTML part that say the same, section by
// section, in the order the portal shows them. Names, titles and group names are user input:
// every value placed in the HTML goes through escapeHtml.

const day = (iso: string) => iso.slice(0, 10);
const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const percent = (value: number | null) => (value === null ? 'no concepts' : `${Math.round(value * 100)}%`);

function licenseLine(summary: WeeklySummary): string {
  if (summary.license.status === 'none') return 'no license';
  return `${summary.license.status}${summary.license.expires_at ? `, until ${day(summary.license.expires_at)}` : ''}`;
}

function scoreLine(item: WeeklySummary['submissions'][number]): string {
  if (item.score === null) return item.status.replace(/_/g, ' ');
  return `${item.score}${item.max_score === null ? '' : ` / ${item.max_score}`}`;
}

/** One section as lines of text, shared by both parts so they cannot drift apart. */
interface Section {
  title: string;
  lines: string[];
  empty: string;
}

/** Whether the school uses Alpha Learning for this student at all: a school that does not is not told "0 minutes". */
const usesAlpha = ({ alpha }: WeeklySummary) => alpha.activities > 0 || alpha.points_total > 0 || alpha.curricula.length > 0;

/**
 * Every section speaks of dates, not of "this week" or "the next 7 days": a report made late (the
 * appliance was off on Monday) or read days later still says which days it covers.
 */
function sections(summary: WeeklySummary): Section[] {
  const { alpha, week, upcoming_window: upcoming } = summary;
  const span = `${week.start} to ${week.end}`;
  const all: Array<Section | null> = [
    {
      title: `Submissions, ${span}`,
      lines: summary.submissions.map(
        (item) =>
          `${item.exam_title}: ${scoreLine(item)} (${item.status.replace(/_/g, ' ')}, handed in ${day(item.submitted_at)})${item.has_feedback ? ', with feedback' : ''}`,
      ),
      empty: 'No submissions in that week.',
    },
    {
      title: `Due ${upcoming.start} to ${upcoming.end}`,
      lines: summary.upcoming_exams.map((item) => `${item.exam_title}: due ${day(item.due_date)}`),
      empty: 'Nothing due on those days.',
    },
    usesAlpha(summary)
      ? {
          title: `Alpha Learning, ${span}`,
          lines: [
            `Practice: ${count(alpha.minutes, 'minute', 'minutes')} in ${count(alpha.activities, 'activity', 'activities')}`,
            `Points: ${alpha.points_earned} earned in that week, ${alpha.points_total} in total`,
            ...alpha.curricula.map(
              (item) =>
                `${item.name}: ${item.concepts_mastered} of ${count(item.concepts_total, 'concept', 'concepts')} mastered, average mastery ${percent(item.average_mastery)}`,
            ),
          ],
          empty: '',
        }
      : null,
    {
      title: `Account, on ${day(summary.made_at)}`,
      lines: [
        `Status: ${summary.student.status}`,
        `License: ${licenseLine(summary)}`,
        `Groups: ${summary.groups.length ? summary.groups.join(', ') : 'none'}`,
        `Activity recorded ${span}: ${summary.activity.events}`,
      ],
      empty: '',
    },
  ];
  return all.filter((section): section is Section => section !== null);
}

const heading = (summary: WeeklySummary) => `Weekly report for ${summary.student.full_name}, ${summary.week.start} to ${summary.week.end}`;
/** Said when the report was made after the Monday that follows its week. */
const lateNote = (summary: WeeklySummary) =>
  day(summary.made_at) > nextDay(summary.week.end) ? `Made on ${day(summary.made_at)}, about the week of ${summary.week.start} to ${summary.week.end}.` : null;
const nextDay = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
const footer = (summary: WeeklySummary, institutionName: string) =>
  `You receive this because you confirmed you are a guardian of ${givenName(summary.student.full_name)} at ${institutionName}.`;

export function renderWeeklyReportText(summary: WeeklySummary, institutionName: string): string {
  const body = sections(summary).flatMap((section) => [
    '',
    section.title,
    ...(section.lines.length ? section.lines.map((line) => `- ${line}`) : [section.empty]),
  ]);
  const late = lateNote(summary);
  return [heading(summary), `From ${institutionName}`, ...(late ? [late] : []), ...body, '', footer(summary, institutionName)].join('\n');
}

export function renderWeeklyReportHtml(summary: WeeklySummary, institutionName: string): string {
  const body = sections(summary).map((section) => {
    const content = section.lines.length
      ? `<ul>${section.lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`
      : `<p>${escapeHtml(section.empty)}</p>`;
    return `<h2 style="font-size:16px;margin:20px 0 6px">${escapeHtml(section.title)}</h2>${content}`;
  });
  return [
    '<!doctype html><html><head><meta charset="utf-8"></head>',
    '<body style="font-family:Arial,Helvetica,sans-serif;color:#1a1b1e;line-height:1.5;max-width:640px">',
    `<h1 style="font-size:20px;margin:0 0 4px">${escapeHtml(heading(summary))}</h1>`,
    `<p style="margin:0;color:#495057">From ${escapeHtml(institutionName)}</p>`,
    ...(lateNote(summary) ? [`<p style="margin:4px 0 0;color:#495057">${escapeHtml(lateNote(summary)!)}</p>`] : []),
    ...body,
    `<p style="margin-top:24px;color:#495057;font-size:13px">${escapeHtml(footer(summary, institutionName))}</p>`,
    '</body></html>',
  ].join('\n');
}
