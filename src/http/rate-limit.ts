import type { Request, RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { RequestAuthenticator } from '../auth';
import type { LimitsConfig } from '../config';
import { AppError, ErrorCode } from '../errors';

/**
 * Requests per minute on the data routes (429 with Retry-After beyond), counted twice: per client
 * address (the socket's, or the one a trusted proxy reports: TRUST_PROXY), and per token subject, so
 * a caller rotating addresses is still limited by its identity. The subject is taken from the
 * verified token only; an unverifiable token is refused later with 401 and counts by address alone.
 * Counted in this process's memory: behind a load balancer with N processes a client gets up to N
 * times the limit; put a shared store (e.g. Redis) here if that matters.
 */
export function requestRateLimit(limits: LimitsConfig, authenticate: RequestAuthenticator): RequestHandler[] {
  const perMinute = limits.rateLimitPerMinute;
  if (perMinute === 0) return [];
  const refuse = (who: string): RequestHandler => (_req, res, next) => {
    const retryAfter = String(res.getHeader('Retry-After') ?? 60);
    next(
      new AppError(ErrorCode.TOO_MANY_REQUESTS, `More than ${perMinute} requests in a minute from this ${who}: retry after ${retryAfter} seconds`, {
        headers: { 'Retry-After': retryAfter },
      }),
    );
  };
  const common = {
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    // Without trusted proxies X-Forwarded-For is ignored on purpose: no warning for clients that send it.
    validate: { xForwardedForHeader: false },
  } as const;
  const subjectOf = async (req: Request) => (await authenticate(req).catch(() => undefined))?.subject;
  return [
    rateLimit({ ...common, handler: refuse('client address') }),
    rateLimit({
      ...common,
      skip: async (req) => (await subjectOf(req)) === undefined,
      keyGenerator: async (req) => `sub:${await subjectOf(req)}`,
      handler: refuse('token subject'),
    }),
  ];
}
