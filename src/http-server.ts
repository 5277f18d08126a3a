import { createServer, STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from './config';
import { ErrorCode } from './errors';
import type { Logger } from './logger';

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

/**
 * Prepares `server` for a graceful stop; call it before the server takes requests. The returned
 * function stops accepting connections, answers every request still unanswered (those in flight
 * and any that arrive on an open keep-alive connection) with `Connection: close` so no client
 * reuses the connection, closes each connection as soon as it is idle, and resolves once all are
 * closed, with the number of requests it had to cut when `timeoutMs` ran out.
 */
export function prepareGracefulClose(server: Server): (timeoutMs: number) => Promise<number> {
  const unanswered = new Set<ServerResponse>();
  let closing = false;
  const closeAfterAnswer = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  // Prepended: it must run before the application answers (some answers are synchronous).
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    unanswered.add(res);
    if (closing) closeAfterAnswer(res);
    res.once('close', () => {
      unanswered.delete(res);
      // A response that had already sent its headers kept the connection open: close it now.
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  return (timeoutMs) =>
    new Promise((resolve) => {
      closing = true;
      for (const res of unanswered) closeAfterAnswer(res);
      let cut = 0;
      const timer = setTimeout(() => {
        cut = unanswered.size;
        server.closeAllConnections();
      }, timeoutMs);
      timer.unref();
      server.close(() => {
        clearTimeout(timer);
        resolve(cut);
      });
      server.closeIdleConnections();
    });
}
