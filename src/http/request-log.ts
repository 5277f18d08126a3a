import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import pino from 'pino';
import type { Request, RequestHandler } from 'express';
import type { Logger } from '../logger';

/** A request id a client may choose (X-Request-Id): short, and nothing a log reader could trip on. */
const REQUEST_ID = /^[\w.:-]{1,100}$/;

/** Probes, sent several times a second by every watcher: no line of their own. */
const QUIET_URLS = new Set(['/healthz', '/readyz']);

export interface RequestLogOptions {
  /** The URL as it may be logged (a download link's signature is a credential: redacted). */
  redactUrl(url: string): string;
}

declare module 'node:http' {
  interface IncomingMessage {
    /** This request's id, as sent back in X-Request-Id. */
    id?: string;
    /** A logger whose lines carry `reqId`. */
    log?: Logger;
  }
}

/**
 * One access-log line per request, when its response is finished or its connection lost, under an
 * X-Request-Id the client may choose (else a new UUID, sent back). `req.log` is a child logger
 * whose lines carry `reqId`. The line has pino-http's shape (`req`, `res`, `responseTime`,
 * "request completed"), at `info`, `warn` for 4xx and `error` for 5xx; the request is described
 * only when the line is written, so a level that drops it costs nothing (pino-http serialised the
 * request, headers and redaction included, into a child logger on every request, whatever the level).
 */
export function requestLog(logger: Logger, options: RequestLogOptions): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    req.id = id;
    req.log = logger.child({ reqId: id });
    if (!QUIET_URLS.has(req.url)) {
      const started = performance.now();
      const done = () => {
        res.off('finish', done);
        res.off('close', done);
        writeLine(logger, req, res, performance.now() - started, options);
      };
      res.on('finish', done);
      res.on('close', done);
    }
    next();
  };
}

function writeLine(logger: Logger, req: Request, res: ServerResponse, responseTime: number, options: RequestLogOptions): void {
  const level = res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const aborted = !res.writableFinished;
  logger[level](
    { reqId: req.id, req: describeRequest(req, options), res: pino.stdSerializers.res(res), responseTime: Math.round(responseTime), ...(aborted ? { aborted } : {}) },
    aborted ? 'request aborted' : 'request completed',
  );
}

/** The request as logged: its query only inside the URL, where the redaction sees it. */
function describeRequest(req: Request, options: RequestLogOptions) {
  return {
    id: req.id,
    method: req.method,
    url: options.redactUrl(req.originalUrl),
    headers: req.headers,
    remoteAddress: req.socket.remoteAddress,
    remotePort: req.socket.remotePort,
  };
}
