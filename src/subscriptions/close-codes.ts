import type { WebSocket } from 'ws';

/**
 * The WebSocket close codes the service sends (README.md, "Live changes → subscriptions"). The
 * 44xx codes are graphql-ws's and keep their protocol meaning; graphql-ws clients give up on 4401,
 * 4429 and 1008–1011 and retry the others, so each code below is chosen for what the client should
 * do next as much as for what went wrong.
 */
export const CloseCode = {
  /** The connection was idle (no subscription) for WS_IDLE_TIMEOUT_MS; a client with subscriptions reconnects. */
  Idle: 1000,
  /** The service is shutting down; clients retry and reach another (or the restarted) process. */
  GoingAway: 1001,
  /** The consumer read too slowly (WS_MAX_QUEUED_EVENTS or WS_MAX_BUFFERED_BYTES); retried after a back-off. */
  SlowConsumer: 1013,
  /** The token is missing, invalid or expired: not retried, the client needs a new token. */
  Unauthorized: 4401,
  /** The token grants none of the scopes a subscription needs. */
  Forbidden: 4403,
  /** The token subject has WS_MAX_CONNECTIONS_PER_SUBJECT connections already: not retried. */
  TooManyConnections: 4429,
  /** A fault of the service (logged); the client may retry. */
  InternalServerError: 4500,
  /** The identity provider's keys cannot be fetched now (HTTP would answer 503). */
  ServiceUnavailable: 1013,
} as const;

/** A close frame's reason holds at most 123 bytes of UTF-8 (RFC 6455 §5.5); `ws` throws on more. */
const MAX_REASON_BYTES = 123;

export function closeReason(text: string): string {
  if (Buffer.byteLength(text) <= MAX_REASON_BYTES) return text;
  let cut = text.slice(0, MAX_REASON_BYTES - 1);
  while (Buffer.byteLength(`${cut}…`) > MAX_REASON_BYTES) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** Closes unless already closing; never throws (a socket may be half gone). */
export function closeSocket(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === socket.CLOSING || socket.readyState === socket.CLOSED) return;
  try {
    socket.close(code, closeReason(reason));
  } catch {
    socket.terminate();
  }
}
