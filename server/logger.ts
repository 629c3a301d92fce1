import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Fields that must never reach a log line, wherever they appear in a logged object. */
const REDACT = [
  'authorization',
  '*.authorization',
  'key',
  '*.key',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'password_hash',
  '*.password_hash',
  'personal_email',
  '*.personal_email',
  'hidden_key_b64',
  '*.hidden_key_b64',
  'token',
  '*.token',
];

/** Errors are logged by name, message and stack only: Sequelize errors carry SQL and values. */
function serializeError(err: unknown) {
  if (!(err instanceof Error)) return { message: String(err) };
  return { type: err.name, message: err.message, stack: err.stack };
}

/**
 * Lines go to standard output (or `destination`). Standard output is written asynchronously:
 * lines logged while a write is under way go out together in the next one, instead of one
 * blocking write per line (a third of `/v1/me`'s time under load went to those writes). Nothing
 * waits in the buffer longer than the write before it, and pino flushes it synchronously when
 * the process exits (docs/decisions/authenticated-hot-path.md).
 */
export function createLogger(level: string, destination: DestinationStream = pino.destination({ dest: 1, sync: false })): Logger {
  return pino(
    {
      level,
      base: { service: 'campusbridge' },
      redact: { paths: REDACT, censor: '[redacted]' },
      serializers: { err: serializeError, error: serializeError },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/**
 * For lines whose fields are all named by the caller and none is in REDACT (the request line,
 * server/http/request-log.ts): the same output without the redaction pass, which costs more
 * than the rest of the line together on the hot path (docs/decisions/authenticated-hot-path.md).
 */
export function unredactedChild(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [] } });
}
