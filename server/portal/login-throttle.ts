/** Failed sign-ins are remembered this long; the back-off is counted over them. */
export const FAILURE_MEMORY_MS = 24 * 60 * 60 * 1000;
/** Failures of one email from one address before it must wait. */
export const PAIR_FREE_FAILURES = 5;
/** Failures from one address, over every email, before it must wait (someone trying many accounts). */
export const ADDRESS_FREE_FAILURES = 30;
/** The first wait; each further failure doubles it, up to MAX_WAIT_MS. */
export const FIRST_WAIT_MS = 60 * 1000;
export const MAX_WAIT_MS = 60 * 60 * 1000;

/**
 * Throttles password guesses (sign-in, and the password of an invitation) per email **and**
 * address together, and per address alone, with exponential back-off. Never per email alone:
 * then anyone could lock the operator out by mistyping their email five times, from anywhere.
 * The owner on their own machine is a different pair and signs in as usual.
 *
 * After the free failures a subject waits FIRST_WAIT_MS from its latest failure, then twice as
 * long after each further one, up to MAX_WAIT_MS: a guesser gets a handful of tries an hour.
 * Per process, in memory: a restart forgets them, which costs an attacker a restart per round.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Seconds until this email may be tried again from this address, or 0. */
  retryAfterSeconds(email: string, address: string): number {
    const at = this.now();
    const waitMs = Math.max(this.waitMs(pairOf(email, address), PAIR_FREE_FAILURES, at), this.waitMs(addressOf(address), ADDRESS_FREE_FAILURES, at));
    return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
  }

  recordFailure(email: string, address: string): void {
    const at = this.now();
    if (this.failures.size > 50_000) this.dropForgotten(at);
    for (const subject of [pairOf(email, address), addressOf(address)]) {
      this.failures.set(subject, [...this.remembered(subject, at), at].slice(-(ADDRESS_FREE_FAILURES + 20)));
    }
  }

  /** A successful sign-in clears the pair (not the address: it may be guessing other accounts). */
  recordSuccess(email: string, address: string): void {
    this.failures.delete(pairOf(email, address));
  }

  private waitMs(subject: string, free: number, at: number): number {
    const recent = this.remembered(subject, at);
    if (recent.length < free) return 0;
    const wait = Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(20, recent.length - free));
    return Math.max(0, recent[recent.length - 1]! + wait - at);
  }

  private remembered(subject: string, at: number): number[] {
    return (this.failures.get(subject) ?? []).filter((time) => time > at - FAILURE_MEMORY_MS);
  }

  private dropForgotten(at: number): void {
    for (const subject of this.failures.keys()) if (this.remembered(subject, at).length === 0) this.failures.delete(subject);
  }
}

const pairOf = (email: string, address: string) => `pair:${email.toLowerCase()}|${address}`;
const addressOf = (address: string) => `address:${address}`;

/**
 * A refused attempt's wait in words, from the seconds its `Retry-After` carries: "in 46 seconds",
 * "in 3 minutes" (rounded up, so the attempt it invites is not refused again).
 */
export function waitInWords(seconds: number): string {
  const whole = Math.max(1, Math.ceil(seconds));
  if (whole < 90) return `in ${whole} ${whole === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.ceil(whole / 60);
  return `in ${minutes} minutes`;
}
