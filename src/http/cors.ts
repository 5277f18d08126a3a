import cors from 'cors';
import type { RequestHandler } from 'express';

/** Request headers browsers may send cross-origin, and response headers their scripts may read. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'Apollo-Require-Preflight', 'X-Request-Id'];
const EXPOSED_HEADERS = ['ETag', 'X-Sheet-Warnings', 'WWW-Authenticate', 'Retry-After', 'X-Request-Id', 'Allow'];

/**
 * Cross-origin access for browser front ends (a FullCalendar page on another host). Identity travels
 * in the Authorization header, never in cookies, so credentials stay off. No origins: no CORS headers.
 */
export function crossOrigin(origins: readonly string[]): RequestHandler[] {
  // No origin allowed: nothing to do, and no step on the way.
  if (origins.length === 0) return [];
  return [cors({
    origin: origins.includes('*') ? '*' : [...origins],
    credentials: false,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  })];
}
