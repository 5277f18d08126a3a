import type { Express } from 'express';
import { SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import request from 'supertest';

/**
 * Bearer-token checks through the real application: the same request shape sent to a REST route
 * and to GraphQL, and the exact RFC 6750 answer each one must give.
 */

export const TIMELINE_URL = '/api/broker/v0/calendar/timeline/event?start=2026-06-10&end=2026-06-10';
/** A data query (needs timeline:read); introspection would pass without a token. */
export const RESOURCES_QUERY = '{ resources { id } }';

/** How a test presents (or fails to present) its credentials. */
export interface Credentials {
  /** The whole Authorization header value; omitted means no header at all. */
  authorization?: string;
  /** Extra query-string parameters (`access_token=` must be ignored). */
  query?: Record<string, string>;
  /** A Cookie header (a token in a cookie must be ignored). */
  cookie?: string;
}

export interface Endpoint {
  name: 'REST' | 'GraphQL';
  send(app: Express, credentials?: Credentials): Promise<request.Response>;
  /** Asserts the answer of an authorised request. */
  expectAccepted(res: request.Response): void;
}

function withCredentials(call: request.Test, { authorization, query, cookie }: Credentials): request.Test {
  if (authorization !== undefined) call.set('Authorization', authorization);
  if (query) call.query(query);
  if (cookie !== undefined) call.set('Cookie', cookie);
  return call;
}

export const REST: Endpoint = {
  name: 'REST',
  send: async (app, credentials = {}) => withCredentials(request(app).get(TIMELINE_URL), credentials),
  expectAccepted(res) {
    expect(res.status).toBe(200);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(Array.isArray(res.body)).toBe(true);
  },
};

export const GRAPHQL: Endpoint = {
  name: 'GraphQL',
  send: async (app, credentials = {}) =>
    withCredentials(request(app).post('/graphql').set('Content-Type', 'application/json'), credentials).send({ query: RESOURCES_QUERY }),
  expectAccepted(res) {
    expect(res.status).toBe(200);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.body.errors).toBeUndefined();
    expect(Array.isArray(res.body.data.resources)).toBe(true);
  },
};

export const ENDPOINTS: readonly Endpoint[] = [REST, GRAPHQL];

/** What a refused request must answer, on either endpoint. */
export interface Rejection {
  status: 401 | 403;
  code: 'UNAUTHENTICATED' | 'FORBIDDEN';
  /** The whole WWW-Authenticate value, compared exactly. */
  challenge: string;
  message: string;
  details: Array<Record<string, unknown>>;
}

/** No credentials, or another scheme: a bare challenge without an error code (RFC 6750 §3.1). */
export function authenticationRequired(
  message = 'Authentication required: send Authorization: Bearer <token>',
): Rejection {
  return { status: 401, code: 'UNAUTHENTICATED', challenge: 'Bearer realm="broker"', message, details: [] };
}

/** A Bearer header that is not `Bearer <one token>` (the service answers 401, not RFC 6750's 400). */
export function invalidRequest(description: string): Rejection {
  return {
    status: 401,
    code: 'UNAUTHENTICATED',
    challenge: `Bearer realm="broker", error="invalid_request", error_description="${description}"`,
    message: `Malformed Authorization header: ${description}`,
    details: [{ field: 'Authorization', message: description }],
  };
}

export function invalidToken(description: string): Rejection {
  return {
    status: 401,
    code: 'UNAUTHENTICATED',
    challenge: `Bearer realm="broker", error="invalid_token", error_description="${description}"`,
    message: `Invalid bearer token: ${description}`,
    details: [{ field: 'Authorization', message: description }],
  };
}

export function insufficientScope(scope: string): Rejection {
  return {
    status: 403,
    code: 'FORBIDDEN',
    challenge: `Bearer realm="broker", error="insufficient_scope", scope="${scope}"`,
    message: `Insufficient scope: this operation requires the "${scope}" scope`,
    details: [{ field: 'scope', message: `missing scope ${scope}`, scope }],
  };
}

/**
 * Asserts status, the exact challenge, the error body of the endpoint (REST `{"error":{…}}`,
 * GraphQL `errors[0]`) and that no part of `credential` comes back in the header or the body.
 */
export function expectRejected(endpoint: Endpoint, res: request.Response, expected: Rejection, credential = ''): void {
  expect(res.status).toBe(expected.status);
  expect(res.headers['www-authenticate']).toBe(expected.challenge);
  if (endpoint.name === 'REST') {
    expect(res.body).toEqual({ error: { code: expected.code, message: expected.message, details: expected.details } });
  } else {
    expect(res.body.errors).toHaveLength(1);
    const [error] = res.body.errors;
    expect(error.extensions.code).toBe(expected.code);
    // Apollo may prefix errors thrown while building the context ("Context creation failed: …").
    expect(error.message).toMatch(new RegExp(`(^|: )${escapeRegExp(expected.message)}$`));
    if (expected.details.length) expect(error.extensions.details).toEqual(expected.details);
    else expect(error.extensions.details).toBeUndefined();
    expect(res.body.data ?? null).toBeNull();
  }
  expectNothingOf(credential, res);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** No 10-character stretch of `credential` (the whole of it when shorter) appears in the answer. */
export function expectNothingOf(credential: string, res: request.Response): void {
  if (credential === '') return;
  const answer = `${res.headers['www-authenticate'] ?? ''}\n${res.text}`;
  const width = Math.min(10, credential.length);
  for (let start = 0; start + width <= credential.length; start += 1) {
    const piece = credential.slice(start, start + width);
    if (answer.includes(piece)) throw new Error(`the answer repeats part of the credential: ${JSON.stringify(piece)}`);
  }
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export const secretBytes = (secret: string): Uint8Array => new TextEncoder().encode(secret);

/** Signs arbitrary claims, for tokens `mintToken` would never produce (expired, wrong issuer…). */
export function signToken(
  claims: JWTPayload,
  key: Uint8Array | CryptoKey,
  header: { alg: string; kid?: string } = { alg: 'HS256' },
): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ typ: 'JWT', ...header }).sign(key);
}

export function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** An unsigned token (`alg: none`), the classic forgery. */
export function unsignedToken(claims: JWTPayload): string {
  return `${base64urlJson({ alg: 'none', typ: 'JWT' })}.${base64urlJson(claims)}.`;
}

/** Same header and signature, other claims: what an attacker editing a token produces. */
export function withPayload(token: string, claims: JWTPayload): string {
  const [header, , signature] = token.split('.');
  return `${header}.${base64urlJson(claims)}.${signature}`;
}
