import { createServer, STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Config } from '../config';
import { ErrorCode } from '../errors';
import type { Logger } from '../logger';

/**
 * The HTTP server the service listens with (main.ts; tests that need the real server's behaviour use
 * it too): time limits on slow clients, and an answer in the error model for requests Node refuses
 * before the application sees them (headers over 16 KiB, malformed HTTP, too slow).
 */
export function createHttpServer(app: RequestListener, config: Pick<Config, 'http'>, logger?: Logger): Server {
  const server = createServer(
    {
      // A client that stalls its headers or body no longer holds a connection for Node's 300 s.
      requestTimeout: config.http.requestTimeoutMs,
      headersTimeout: config.http.headersTimeoutMs,
      // How often Node looks for expired requests (30 s by default, which would stretch the limits).
      connectionsCheckingInterval: Math.min(1000, config.http.headersTimeoutMs),
    },
    app,
  );
  server.keepAliveTimeout = config.http.keepAliveTimeoutMs;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, logger));
  return server;
}

/** What Node would answer (431, 408, 400), but as `{"error": {code, message, details}}`. */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, logger?: Logger): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request line and headers are too large (at most 16 KiB): shorten the URL or the headers']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request did not arrive in time']
        : [400, 'The request is not valid HTTP'];
  logger?.debug({ err: { message: error.message, code: error.code } }, 'refused a request Node could not read');
  const body = JSON.stringify({ error: { code: ErrorCode.BAD_REQUEST, message, details: [] } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** How a drain went: requests cut when SHUTDOWN_TIMEOUT_MS ran out. */
export interface DrainResult {
  cut: number;
}

/**
 * Prepares `server` for a graceful stop; call it before the server takes requests. The returned
 * function drains it in three steps:
 *
 * 1. For `graceMs` the server still accepts connections: a connection the kernel accepted before the
 *    signal, one a proxy opens before it noticed /readyz turn 503, and a request a proxy sends on a
 *    kept-alive connection are all served. Every answer from now on (those in flight included)
 *    carries `Connection: close`, and the connection closes once it is sent, so no client reuses it.
 * 2. Then it stops accepting. A connection still idle is left to the keep-alive time-out it announced
 *    (`Keep-Alive: timeout=`): closing it now would race a request the client may be sending on it
 *    (a reset the client cannot tell from a lost request), while a client that honours the
 *    announcement stops reusing it before it expires.
 * 3. It resolves once every connection closed, or at `timeoutMs` after the start, when what is left is cut.
 */
export function prepareGracefulClose(server: Server, onStopAccepting?: () => void): (graceMs: number, timeoutMs: number) => Promise<DrainResult> {
  const unanswered = new Set<ServerResponse>();
  let closing = false;
  const closeAfterAnswer = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  // Prepended: it must run before the application answers (some answers are synchronous).
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    unanswered.add(res);
    if (closing) closeAfterAnswer(res);
    res.once('close', () => unanswered.delete(res));
  });
  return (graceMs, timeoutMs) =>
    new Promise((resolve) => {
      closing = true;
      for (const res of unanswered) closeAfterAnswer(res);
      let cut = 0;
      const deadline = setTimeout(() => {
        cut = unanswered.size;
        server.closeAllConnections();
      }, timeoutMs);
      deadline.unref();
      setTimeout(() => {
        onStopAccepting?.();
        // net.Server's own close: http.Server's would also close every idle connection at once.
        net.Server.prototype.close.call(server, () => {
          clearTimeout(deadline);
          // Now that nothing is open, http.Server's close stops its connection-checking timer.
          server.close(() => resolve({ cut }));
        });
      }, graceMs);
    });
}
