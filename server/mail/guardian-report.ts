import type { WeeklySummary } from '../models/guardian.js';
import { escapeHtml } from '../html.js';

// The weekly report as mail: a plain-text part and an HTML part that say the same, section by
// section, in the order the portal shows them. Names, titles and group names are user input:
// every value placed in the HTML goes through escapeHtml.

const firstName = (fullName: string) => fullName.trim().split(/\s+/)[0] ?? fullName;
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

function sections(summary: WeeklySummary): Section[] {
  const { alpha } = summary;
  return [
    {
      title: 'Submissions this week',
      lines: summary.submissions.map(
        (item) =>
          `${item.exam_title}: ${scoreLine(item)} (${item.status.replace(/_/g, ' ')}, handed in ${day(item.submitted_at)})${item.has_feedback ? ', with feedback' : ''}`,
      ),
      empty: 'No submissions this week.',
    },
    {
      title: 'Due in the next 7 days',
      lines: summary.upcoming_exams.map((item) => `${item.exam_title}: due ${day(item.due_date)}`),
      empty: 'Nothing due.',
    },
    {
      title: 'Alpha Learning',
      lines: [
        `Practice: ${count(alpha.minutes, 'minute', 'minutes')} in ${count(alpha.activities, 'activity', 'activities')}`,
        `Points: ${alpha.points_earned} earned this week, ${alpha.points_total} in total`,
        ...alpha.curricula.map(
          (item) =>
            `${item.name}: ${item.concepts_mastered} of ${count(item.concepts_total, 'concept', 'concepts')} mastered, average mastery ${percent(item.average_mastery)}`,
        ),
      ],
      empty: '',
    },
    {
      title: 'Account',
      lines: [
        `Status: ${summary.student.status}`,
        `License: ${licenseLine(summary)}`,
        `Groups: ${summary.groups.length ? summary.groups.join(', ') : 'none'}`,
        `Activity recorded this week: ${summary.activity.events}`,
      ],
      empty: '',
    },
  ];
}

const heading = (summary: WeeklySummary) => `Weekly report for ${summary.student.full_name}, ${summary.week.start} to ${summary.week.end}`;
const footer = (summary: WeeklySummary, institutionName: string) =>
  `You receive this because you confirmed you are a guardian of ${firstName(summary.student.full_name)} at ${institutionName}.`;

export function renderWeeklyReportText(summary: WeeklySummary, institutionName: string): string {
  const body = sections(summary).flatMap((section) => [
    '',
    section.title,
    ...(section.lines.length ? section.lines.map((line) => `- ${line}`) : [section.empty]),
  ]);
  return [heading(summary), `From ${institutionName}`, ...body, '', footer(summary, institutionName)].join('\n');
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
    ...body,
    `<p style="margin-top:24px;color:#495057;font-size:13px">${escapeHtml(footer(summary, institutionName))}</p>`,
    '</body></html>',
  ].join('\n');
}
