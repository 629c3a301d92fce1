/** Time left on an attempt, as the page shows it: `m:ss`, or `h:mm:ss` from an hour. */
const pad = (n: number) => String(n).padStart(2, '0');

export function formatDuration(ms: number): string {
  const total = Math.ceil(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(seconds)}` : `${minutes}:${pad(seconds)}`;
}

/**
 * Milliseconds left on an attempt by the server's clock (`clockOffsetMs`: server minus device),
 * null without a limit. Kept between 0 and the attempt's length: the offset comes from a `Date`
 * header of one-second resolution, which must not show 30:01 on a 30-minute exam.
 */
export function timeLeft(attempt: { started_at: string; expires_at: string | null }, clockOffsetMs: number, now = Date.now()): number | null {
  if (attempt.expires_at === null) return null;
  const expiresAt = Date.parse(attempt.expires_at);
  return Math.min(expiresAt - Date.parse(attempt.started_at), Math.max(0, expiresAt - (now + clockOffsetMs)));
}
