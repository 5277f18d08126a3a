import type { RequestHandler } from 'express';
import type { RequestAuthenticator } from '../auth';
import { requireScope, Scope } from '../auth';
import type { Metrics } from './metrics';

/**
 * Times every HTTP request and records it under its route template once the connection is done
 * with it: `/api/broker/v0/upload/:flightId`, never the path a client sent. A request no route
 * took is `unmatched`; one whose client left before the answer was sent has status `aborted`.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    let template: string | undefined;
    // Express sets req.route when a route matches, and resets baseUrl as an error travels up out of
    // its router: take the template at the moment of the match, with the mount path of that moment.
    let route: unknown;
    Object.defineProperty(req, 'route', {
      configurable: true,
      enumerable: true,
      get: () => route,
      set(value: { path?: unknown } | undefined) {
        route = value;
        if (typeof value?.path === 'string') template = `${req.baseUrl}${value.path}`;
      },
    });
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // A router or middleware mounted at a path without routes of its own (Apollo at /graphql).
      const name = template ?? (req.baseUrl || 'unmatched');
      metrics.observeHttp(req.method, name, res.writableFinished ? res.statusCode : 0, seconds);
    });
    next();
  };
}

/** GET /metrics: the exposition for a token carrying metrics:read (Prometheus sends bearer tokens). */
export function metricsRoute(metrics: Metrics, authenticate: RequestAuthenticator): RequestHandler {
  return async (req, res, next) => {
    try {
      requireScope(await authenticate(req), Scope.MetricsRead);
      const { contentType, body } = await metrics.exposition();
      res.setHeader('Cache-Control', 'no-store');
      res.type(contentType).send(body);
    } catch (error) {
      next(error);
    }
  };
}
