import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { envelope, serializeEnvelope } from '../envelope/envelope.js';
import { statusOf } from '../envelope/error-message.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import { securityHeaderPairs } from './protections.js';

/**
 * Requests that never reach Koa (malformed HTTP, a head over RestAPI:MaxHeaderBytes, a request not received in
 * time) get the envelope too, written straight to the socket, instead of node's bare status line.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  // Its own code for a request the client was too slow to send (408): Request_Timeout is the server's 503.
  const m = err.code === 'HPE_HEADER_OVERFLOW' ? MESSAGES.Request_HeadersTooLarge()
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? MESSAGES.Request_ReceiveTimeout() : MESSAGES.Request_Malformed();
  const status = statusOf(m);
  const body = serializeEnvelope(envelope([m]));
  // The security headers every other answer carries, too: these are JSON bodies a browser might be shown.
  const security = securityHeaderPairs().map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Language: en\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\n${security}Connection: close\r\n\r\n${body}`,
  );
}
