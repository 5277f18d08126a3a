import express, { type NextFunction, type Request, type Response } from 'express';
import { SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { requireScope } from '../../src/auth/authorize';
import { Scope } from '../../src/auth/scopes';
import { createTokenVerifier, type TokenVerifierOptions } from '../../src/auth/token-verifier';
import type { AuthConfig } from '../../src/config';
import { asAppError } from '../../src/errors';

export const TIMELINE_PATH = '/api/broker/v0/calendar/timeline/event';
export const PUSH_PATH = '/api/broker/v0/flight/1/passenger';

/** A 32-byte HS256 secret for tests. */
export const TEST_SECRET = 'test-secret-0123456789-abcdefghijklmnop';

export function authConfig(overrides: Partial<AuthConfig> = {}): AuthConfig {
  return { clockToleranceSeconds: 30, ...overrides };
}

/**
 * A tiny Express 5 app wired like the real one: the shared verifier, `requireScope` per route, and
 * AppErrors rendered as `{"error":{"code","message","details"}}` with their status and headers.
 * The timeline route answers with the principal so tests can see what the verifier produced.
 */
export function createAuthHarness(auth: AuthConfig, options: TokenVerifierOptions = {}): express.Express {
  const verifier = createTokenVerifier(auth, options);
  const app = express();

  app.get(TIMELINE_PATH, async (req: Request, res: Response) => {
    const principal = requireScope(await verifier.authenticate(req.get('authorization')), Scope.TimelineRead);
    res.json({ subject: principal.subject, scopes: [...principal.scopes].sort(), tokenId: principal.tokenId ?? null });
  });
  app.post(PUSH_PATH, async (req: Request, res: Response) => {
    requireScope(await verifier.authenticate(req.get('authorization')), Scope.PassengersWrite);
    res.status(204).end();
  });

  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const appError = asAppError(error);
    if (!appError) {
      res.status(500).json({ error: { code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', details: [] } });
      return;
    }
    res
      .status(appError.status)
      .set(appError.headers)
      .json({ error: { code: appError.code, message: appError.message, details: appError.details } });
  });
  return app;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Signs arbitrary claims, for tokens `mintToken` would never produce (expired, wrong issuer…). */
export async function signToken(
  claims: JWTPayload,
  key: Uint8Array | CryptoKey,
  header: { alg: string; kid?: string } = { alg: 'HS256' },
): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ typ: 'JWT', ...header }).sign(key);
}

/** Claims of a token that passes every check of `authConfig()` (one hour left, timeline:read). */
export function validClaims(overrides: JWTPayload = {}): JWTPayload {
  const now = nowSeconds();
  return { sub: 'alice', scope: Scope.TimelineRead, jti: 'token-1', iat: now, exp: now + 3600, ...overrides };
}

export const secretBytes = (secret: string = TEST_SECRET): Uint8Array => new TextEncoder().encode(secret);

export function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** An unsigned token (`alg: none`), the classic forgery. */
export function unsignedToken(claims: JWTPayload): string {
  return `${base64urlJson({ alg: 'none', typ: 'JWT' })}.${base64urlJson(claims)}.`;
}

/** Same header and signature, different claims: what an attacker editing a token produces. */
export function withPayload(token: string, claims: JWTPayload): string {
  const [header, , signature] = token.split('.');
  return `${header}.${base64urlJson(claims)}.${signature}`;
}

/** Reads the parameters of a `WWW-Authenticate: Bearer k="v", …` challenge. */
export function challengeParams(header: string | undefined): Record<string, string> {
  expect(header).toMatch(/^Bearer /);
  const params: Record<string, string> = {};
  for (const match of (header as string).matchAll(/(\w+)="([^"]*)"/g)) params[match[1]] = match[2];
  return params;
}
