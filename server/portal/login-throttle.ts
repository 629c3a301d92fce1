export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const MAX_FAILED_LOGINS = 5;

/**
 * Failed sign-ins per subject (`email:<address>`, `ip:<address>`) over a sliding 15-minute
 * window: after 5 failures the subject is refused until the oldest of them is 15 minutes old.
 * Sliding rather than clock-aligned, so 5 failures just before a boundary and 5 just after are
 * not 10 guesses in a minute. Per process, in memory: a restart forgets them, which costs an
 * attacker a restart per 5 guesses.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Seconds until every subject may try again, or 0 when none is out of attempts. */
  retryAfterSeconds(subjects: readonly string[]): number {
    const at = this.now();
    let waitMs = 0;
    for (const subject of subjects) {
      const recent = this.recent(subject, at);
      const oldest = recent[recent.length - MAX_FAILED_LOGINS];
      if (oldest !== undefined) waitMs = Math.max(waitMs, oldest + LOGIN_WINDOW_MS - at);
    }
    return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
  }

  recordFailure(subjects: readonly string[]): void {
    const at = this.now();
    if (this.failures.size > 50_000) this.dropStale(at);
    for (const subject of subjects) this.failures.set(subject, [...this.recent(subject, at), at].slice(-MAX_FAILED_LOGINS));
  }

  /** A successful sign-in clears the email's count (not the address's: it may be guessing others). */
  clear(subject: string): void {
    this.failures.delete(subject);
  }

  private recent(subject: string, at: number): number[] {
    return (this.failures.get(subject) ?? []).filter((time) => time > at - LOGIN_WINDOW_MS);
  }

  private dropStale(at: number): void {
    for (const [subject, times] of this.failures) if (times.every((time) => time <= at - LOGIN_WINDOW_MS)) this.failures.delete(subject);
  }
}
