/**
 * A delivery as a curl command (docs/webhooks.md#debugging-a-webhook-integration). Every argument
 * is single-quoted for a POSIX shell (a `'` inside becomes `'\''`): between single quotes a shell
 * changes no byte, so `--data-binary` sends the body exactly. Written here rather than taken from
 * shell-quote, whose double-quoted form leaves `\!` as two characters under bash's history expansion.
 */
export const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

export interface CurlRequest {
  url: string;
  /** In the order sent. */
  headers: ReadonlyArray<{ name: string; value: string }>;
  body: string;
}

export function curlCommand(request: CurlRequest): string {
  const parts = [
    'curl -sS -X POST',
    shellQuote(request.url),
    ...request.headers.map((header) => `-H ${shellQuote(`${header.name}: ${header.value}`)}`),
    `--data-binary ${shellQuote(request.body)}`,
  ];
  return parts.join(' \\\n  ');
}
