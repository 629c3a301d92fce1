// @tier unit
import { describe, expect, it } from 'vitest';
import { waitInWords } from './login-throttle.js';

describe("a refused sign-in's wait in words", () => {
  it('says the seconds of Retry-After, then whole minutes rounded up', () => {
    expect(waitInWords(1)).toBe('in 1 second');
    expect(waitInWords(46)).toBe('in 46 seconds');
    expect(waitInWords(89)).toBe('in 89 seconds');
    expect(waitInWords(90)).toBe('in 2 minutes');
    expect(waitInWords(601)).toBe('in 11 minutes');
    expect(waitInWords(0.2)).toBe('in 1 second');
  });
});
