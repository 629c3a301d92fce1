// @tier unit
// How a refused form speaks (ui/src/api/fieldErrors.ts): each problem under its field, in words
// that use the form's label for it, never the API's field name or zod's wording.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../ui/src/api/errors.js';
import { errorInWords, fieldErrors, fieldOf, labelOf, messageInWords, problemInWords } from '../ui/src/api/fieldErrors.js';
import { zodDetails } from '../server/validation/parse.js';

const LABELS = { full_name: 'Full name', personal_email: 'Personal email', license_days: 'License length (days)', events: 'Events', url: 'URL' };

/** The 422 the server answers for `body` against `schema`, as the portal's client reads it. */
function refusal(schema: z.ZodType, body: unknown): ApiError {
  const result = schema.safeParse(body);
  if (result.success) throw new Error('the body was accepted');
  return new ApiError(422, 'validation_error', 'The request is not valid.', zodDetails(result.error));
}

describe('fieldErrors', () => {
  it("puts zod's refusals of the server's own schemas under the right field, in words with the label", () => {
    const schema = z.strictObject({
      full_name: z.string().trim().min(1).max(200),
      personal_email: z.email().max(320).nullable().optional(),
      license_days: z.number().int().min(1).max(3650),
    });
    const error = refusal(schema, { full_name: '', personal_email: 'ada@localhost', license_days: 4000 });
    expect(fieldErrors(error, LABELS)).toEqual({
      full_name: 'Full name: this cannot be empty',
      personal_email: 'Personal email: that is not an e-mail address',
      license_days: 'License length (days): must be 3650 or less',
    });
    expect(errorInWords(error, LABELS)).toBe(
      'Full name: this cannot be empty. Personal email: that is not an e-mail address. License length (days): must be 3650 or less.',
    );
  });

  it("files a nested or listed field's problem under the form's field, and says when the value is missing or not whole", () => {
    const schema = z.strictObject({ events: z.array(z.string().max(5)).min(1), license_days: z.number().int() });
    const error = refusal(schema, { events: ['student.created'], license_days: 1.5 });
    expect(fieldErrors(error, LABELS)).toEqual({ events: 'Events: use at most 5 characters', license_days: 'License length (days): must be a whole number' });
    expect(fieldErrors(refusal(schema, {}), LABELS)).toEqual({ events: 'Events: this is required', license_days: 'License length (days): this is required' });
    expect(fieldOf('events.0', LABELS)).toBe('events');
  });

  it("keeps the server's own sentences, with API field names read as labels", () => {
    const taken = new ApiError(409, 'conflict', 'Another student already has full_name "Ada".');
    expect(fieldErrors(taken, LABELS)).toEqual({ full_name: 'Full name: another student already has Full name "Ada"' });
    const refused = new ApiError(422, 'https_required', 'Webhook endpoints must use https://.');
    expect(fieldErrors(refused, LABELS)).toEqual({ url: 'URL: webhook endpoints must use https://' });
    expect(errorInWords(refused, LABELS)).toBe('URL: webhook endpoints must use https://.');
    const custom = new ApiError(422, 'validation_error', 'x', [{ path: 'current_password', message: 'This is not your current password.' }]);
    expect(fieldErrors(custom, { current_password: 'Current password' })).toEqual({ current_password: 'Current password: this is not your current password' });
  });

  it('names a field the form has no label for by its API name made readable, and leaves other refusals as they are', () => {
    const error = new ApiError(422, 'validation_error', 'x', [{ path: 'rate_limit_per_min', message: 'Too small: expected number to be >=1' }]);
    expect(fieldErrors(error, LABELS)).toEqual({});
    expect(errorInWords(error, LABELS)).toBe('Rate limit per min: must be 1 or more.');
    expect(labelOf('students.3.full_name', {})).toBe('Students full name');
    expect(errorInWords(new ApiError(429, 'rate_limited', 'Too many requests; try again in a minute.'), LABELS)).toBe(
      'Too many requests; try again in a minute.',
    );
    // A field named by a plain word is English too: the sentence stays as it is, and under no field.
    const wrong = new ApiError(401, 'unauthorized', 'Wrong email or password.');
    expect(errorInWords(wrong, { email: 'Email', password: 'Password' })).toBe('Wrong email or password.');
    expect(fieldErrors(wrong, { email: 'Email', password: 'Password' })).toEqual({});
    expect(fieldErrors(new Error('network'), LABELS)).toEqual({});
  });
});

describe('problemInWords and messageInWords', () => {
  it.each([
    ['Invalid email address', 'that is not an e-mail address'],
    ['Too small: expected string to have >=10 characters', 'use at least 10 characters'],
    ['Too big: expected array to have <=20 items', 'at most 20'],
    ['Too small: expected array to have >=1 items', 'choose at least one'],
    ['Invalid option: expected one of "admin"|"developer"', 'choose one of admin, developer'],
    ['Invalid input: expected number, received string', 'must be a number'],
    ['Must be in the future.', 'must be in the future'],
    ['URL must be public.', 'URL must be public'],
  ])('%s → %s', (message, words) => {
    expect(problemInWords(message)).toBe(words);
  });

  it('reads a bulk result\'s "field: message" with the label first', () => {
    expect(messageInWords('personal_email: Invalid email address', LABELS)).toBe('Personal email: that is not an e-mail address');
    expect(messageInWords('A voided submission cannot be graded.', LABELS)).toBe('A voided submission cannot be graded.');
  });
});
