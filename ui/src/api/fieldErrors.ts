/**
 * A refused form in words, with the form's own labels (docs/decisions/names-not-ids.md). The API
 * answers `422 validation_error` with `details: [{path, message}]`, `path` an API field
 * (`personal_email`, `events.2`) and `message` often zod's own ("Invalid email address"). A form
 * shows each problem under its field and in a sentence a person reads: "Personal email: that is
 * not an e-mail address". Pure functions, tested on their own (tests/ui-field-errors.test.ts).
 */
import { ApiError } from './errors';

/** A form's labels by the API field each input sends: `{ personal_email: 'Personal email' }`. */
export type FieldLabels = Readonly<Record<string, string>>;

/** zod's messages (the version the server pins) and the words a form shows instead; the first match wins. */
const ZOD_WORDS: Array<[RegExp, (match: RegExpExecArray) => string]> = [
  [/^Invalid email address$/i, () => 'that is not an e-mail address'],
  [/^Invalid URL$/i, () => 'that is not a web address (such as https://example.org/…)'],
  [/^Invalid ISO date(time)?/i, () => 'that is not a date and time'],
  [/^Too small: expected string to have >=1 characters?$/, () => 'this cannot be empty'],
  [/^Too small: expected string to have >=(\d+) characters$/, (m) => `use at least ${m[1]} characters`],
  [/^Too big: expected string to have <=(\d+) characters$/, (m) => `use at most ${m[1]} characters`],
  [/^Too small: expected array to have >=1 items?$/, () => 'choose at least one'],
  [/^Too small: expected array to have >=(\d+) items$/, (m) => `choose at least ${m[1]}`],
  [/^Too big: expected array to have <=(\d+) items$/, (m) => `at most ${m[1]}`],
  [/^Too small: expected number to be >=(-?[\d.]+)$/, (m) => `must be ${m[1]} or more`],
  [/^Too small: expected number to be >(-?[\d.]+)$/, (m) => `must be more than ${m[1]}`],
  [/^Too big: expected number to be <=(-?[\d.]+)$/, (m) => `must be ${m[1]} or less`],
  [/^Too big: expected number to be <(-?[\d.]+)$/, (m) => `must be less than ${m[1]}`],
  [/^Invalid input: expected int, received/, () => 'must be a whole number'],
  [/^Invalid input: expected \w+, received (undefined|null)$/, () => 'this is required'],
  [/^Invalid input: expected number, received/, () => 'must be a number'],
  [/^Invalid input: expected boolean, received/, () => 'must be yes or no'],
  [/^Invalid option: expected one of (.+)$/, (m) => `choose one of ${m[1]!.replaceAll('"', '').split('|').join(', ')}`],
  [/^Invalid string: must match pattern/, () => 'that is not in the expected form'],
  [/^Unknown field\.?$/, () => 'the form sent a field the appliance does not know; reload the page'],
  [/^Required\.?$/, () => 'this is required'],
];

/** The API's refusals that concern one field without naming it in `details`: the field they are about. */
const FIELD_OF_CODE: Readonly<Record<string, string>> = {
  https_required: 'url',
  private_host: 'url',
  events_required: 'events',
  invalid_faculty: 'faculty_id',
  no_owner: 'faculty_id',
  invalid_scopes: 'scopes',
  no_valid_students: 'student_ids',
  file_too_large: 'file',
};

/** A sentence's start in lower case, after a label's colon ("Must be…" → "must be…"), acronyms kept; no closing full stop. */
function afterColon(message: string): string {
  const trimmed = message.trim().replace(/\.$/, '');
  return /^[A-Z][a-z]/.test(trimmed) ? trimmed.charAt(0).toLowerCase() + trimmed.slice(1) : trimmed;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The field's API name as a whole word: `student_id`, not the start of `student_ids`. */
const mention = (field: string, flags = '') => new RegExp(`\\b${escape(field)}\\b`, flags);

/**
 * The fields a sentence can name by their API name: `faculty_id`, `code_spec.toolchain`. A plain word
 * (`email`, `password`) is English too: "Wrong email or password" must stay as it is.
 */
const namedIn = (labels: FieldLabels, message: string) => Object.keys(labels).filter((field) => /[_.]/.test(field) && mention(field).test(message));

/** Every API field name the message mentions (`faculty_id "x" is not…`) read as its label. */
function withLabels(message: string, labels: FieldLabels): string {
  let worded = message;
  for (const field of namedIn(labels, message)) worded = worded.replace(mention(field, 'g'), labels[field]!);
  return worded;
}

/** One refusal in words: zod's messages rewritten, the API's own sentences kept with field names as labels. */
export function problemInWords(message: string, labels: FieldLabels = {}): string {
  for (const [pattern, words] of ZOD_WORDS) {
    const match = pattern.exec(message.trim());
    if (match) return words(match);
  }
  return afterColon(withLabels(message, labels));
}

/**
 * A message that names its field first, as bulk results do (`personal_email: Invalid email address`),
 * in words: "Personal email: that is not an e-mail address". Other sentences keep their words, API
 * field names read as labels.
 */
export function messageInWords(message: string, labels: FieldLabels = {}): string {
  const named = /^([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*): (.+)$/s.exec(message.trim());
  if (named) return `${labelOf(named[1]!, labels)}: ${problemInWords(named[2]!, labels)}`;
  return withLabels(message, labels);
}

/** The form field a detail's path is about: the longest labelled prefix (`events.2` → `events`). */
export function fieldOf(path: string, labels: FieldLabels): string | undefined {
  const parts = path.split('.');
  for (let length = parts.length; length > 0; length -= 1) {
    const candidate = parts.slice(0, length).join('.');
    if (Object.hasOwn(labels, candidate)) return candidate;
  }
  return undefined;
}

/** A field's label, or its API name made readable when the form has none: `license_days` → "License days". */
export function labelOf(path: string, labels: FieldLabels): string {
  const field = fieldOf(path, labels);
  if (field) return labels[field]!;
  const name = path
    .split('.')
    .filter((part) => !/^\d+$/.test(part))
    .join(' ')
    .replace(/_/g, ' ')
    .trim();
  return name ? name.charAt(0).toUpperCase() + name.slice(1) : '';
}

interface Problem {
  /** The form's field, when the problem is about one it has. */
  field: string | undefined;
  /** "Personal email: that is not an e-mail address". */
  sentence: string;
}

/** Each problem of a refusal, in words, with the field it belongs under. */
function problemsOf(error: unknown, labels: FieldLabels): Problem[] {
  if (!(error instanceof ApiError)) return [];
  if (error.details.length > 0) {
    return error.details.map(({ path, message }) => {
      const label = labelOf(path, labels);
      const words = problemInWords(message, labels);
      return { field: fieldOf(path, labels), sentence: label ? `${label}: ${words}` : words.charAt(0).toUpperCase() + words.slice(1) };
    });
  }
  // A refusal about one field without details (`https_required`), or one whose sentence names a field of the form.
  const named = namedIn(labels, error.message);
  const field = FIELD_OF_CODE[error.code] ?? (named.length === 1 ? named[0] : undefined);
  if (!field || !Object.hasOwn(labels, field)) return [];
  return [{ field, sentence: `${labels[field]}: ${problemInWords(error.message, labels)}` }];
}

/** The problems to show under the form's fields, by API field: `{ personal_email: 'Personal email: that is not an e-mail address' }`. */
export function fieldErrors(error: unknown, labels: FieldLabels): Partial<Record<string, string>> {
  const byField: Partial<Record<string, string>> = {};
  for (const { field, sentence } of problemsOf(error, labels)) {
    if (field && !byField[field]) byField[field] = sentence;
  }
  return byField;
}

/** The whole refusal in words, for an alert or a toast: every problem with its field's label. */
export function errorInWords(error: unknown, labels: FieldLabels = {}): string {
  if (typeof error === 'string') return error;
  if (!(error instanceof Error)) return 'Something went wrong.';
  const problems = problemsOf(error, labels);
  if (problems.length === 0) return messageInWords(error.message, labels);
  const shown = problems.slice(0, 3).map((problem) => problem.sentence);
  const more = problems.length - shown.length;
  return `${shown.join('. ')}${more > 0 ? `. And ${more} more.` : '.'}`;
}
