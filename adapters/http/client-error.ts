import type { Duplex } from 'node:stream';
import { ErrorCode } from '../../src/domain/errors.js';
import { errorEnvelope } from './error-response.js';
import { STATUS_BY_CODE } from './error-status.js';

/**
 * Answers a request node refused before it reached the app (headers over the limit, a malformed request
 * line, a header timeout) with the service's error envelope instead of node's bare status line, then
 * closes the connection: after a parse error the stream cannot be trusted to find the next request.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, maxHeaderBytes: number): void {
  // As node's own handler does: a response already under way on this socket cannot be followed by another.
  const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) {
    socket.destroy();
    return;
  }
  const [code, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [ErrorCode.HEADERS_TOO_LARGE, 'Request Header Fields Too Large', `request headers are larger than the limit of ${maxHeaderBytes} bytes`]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [ErrorCode.REQUEST_TIMEOUT, 'Request Timeout', 'request was not received in time']
        : [ErrorCode.INVALID_ARGUMENT, 'Bad Request', 'malformed HTTP request'];
  const status = STATUS_BY_CODE[code];
  const body = JSON.stringify(errorEnvelope(code, message));
  // An answer to HEAD carries no body (RFC 9110 9.3.2): a client would read it as its next answer. The
  // method is read from rawPacket, the chunk node was parsing; a request whose head arrived in several
  // chunks may not start it, and then gets the body as before (the connection closes either way).
  const head = (error as NodeJS.ErrnoException & { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
  );
}
