// @tier unit
// How the portal says when (ui/src/components/format.ts): relative times point the right way in
// the future too, and exact times can be given to the second.
import { describe, expect, it } from 'vitest';
import { formatDate, formatDateSeconds, formatRelative } from '../ui/src/components/format.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const at = (seconds: number) => new Date(NOW + seconds * 1000).toISOString();

describe('formatRelative', () => {
  it('says a time under a minute ahead is in the future, in seconds', () => {
    expect(formatRelative(at(50), NOW)).toBe('in 50 seconds');
    expect(formatRelative(at(5), NOW)).toBe('in 5 seconds');
  });

  it('keeps "just now" for the last few seconds, then counts seconds, minutes and days both ways', () => {
    expect(formatRelative(at(-3), NOW)).toBe('just now');
    expect(formatRelative(at(-30), NOW)).toBe('30 seconds ago');
    expect(formatRelative(at(-180), NOW)).toBe('3 minutes ago');
    expect(formatRelative(at(4 * 60), NOW)).toBe('in 4 minutes');
    expect(formatRelative(at(2 * 86_400), NOW)).toBe('in 2 days');
    expect(formatRelative(null, NOW)).toBe('—');
  });
});

describe('formatDateSeconds', () => {
  it('shows the seconds that formatDate leaves out', () => {
    const iso = '2026-11-25T12:34:56Z';
    expect(formatDateSeconds(iso)).toMatch(/:56/);
    expect(formatDate(iso)).not.toMatch(/:56/);
    expect(formatDateSeconds(undefined)).toBe('—');
  });
});
