import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { LimitsConfig } from '../config';
import { AppError, ErrorCode } from '../errors';

/**
 * Requests per client IP and minute on the data routes (429 with Retry-After beyond). Counted in
 * this process's memory: behind a load balancer with N processes a client gets up to N times the
 * limit; put a shared store (e.g. Redis) here if that matters.
 */
export function requestRateLimit(limits: LimitsConfig): RequestHandler {
  if (limits.rateLimitPerMinute === 0) return (_req, _res, next) => next();
  return rateLimit({
    windowMs: 60_000,
    limit: limits.rateLimitPerMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler: (_req, res, next) => {
      const retryAfter = res.getHeader('Retry-After');
      next(
        new AppError(ErrorCode.TOO_MANY_REQUESTS, `More than ${limits.rateLimitPerMinute} requests in a minute from this client: retry after ${String(retryAfter ?? 60)} seconds`, {
          headers: { 'Retry-After': String(retryAfter ?? 60) },
        }),
      );
    },
  });
}
