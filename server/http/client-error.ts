import type { Socket } from 'node:net';
import { randomToken } from '../ids.js';

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/**
 * Requests Node's HTTP parser refuses before Express sees them (malformed framing, a header block
 * over 16 KB, a header with a control character) get the envelope and an `X-Request-Id` like every
 * other answer, instead of Node's bare status line. The connection is closed after it.
 */
export function answerClientError(error: NodeJS.ErrnoException & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431
      ? 'The request headers are larger than 16 KB.'
      : status === 408
        ? 'The request took too long to arrive.'
        : 'The request is not well-formed HTTP.';
  const body = JSON.stringify({ success: false, error: 'bad_request', message });
  socket.end(
    [
      `HTTP/1.1 ${status} ${REASONS[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: req_${randomToken(20)}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
