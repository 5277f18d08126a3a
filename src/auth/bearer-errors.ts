import { AppError, ErrorCode } from '../errors';

/**
 * RFC 6750 challenges. Every 401/403 carries a `WWW-Authenticate: Bearer realm="broker"…` header
 * so that Apollo (extensions.http.headers) and the REST facade (AppError.headers) send the same thing.
 */
export const REALM = 'broker';

export const AUTHENTICATION_REQUIRED_MESSAGE = 'Authentication required: send Authorization: Bearer <token>';

/**
 * No credentials, or credentials of another scheme (Basic…). RFC 6750 §3: a request that lacks
 * authentication information, or uses an unsupported method, gets a challenge without an error code.
 */
export function authenticationRequired(message = AUTHENTICATION_REQUIRED_MESSAGE): AppError {
  return new AppError(ErrorCode.UNAUTHENTICATED, message, {
    headers: { 'WWW-Authenticate': challenge({}) },
  });
}

/**
 * A Bearer header that is not `Bearer <one token>` (empty token, extra parts, characters outside
 * b64token). RFC 6750 calls this `invalid_request` and suggests 400; we answer 401 with
 * error="invalid_request" instead, so that every authentication problem has one status and
 * clients re-authenticate rather than treat it as a bad query.
 */
export function malformedCredentials(description: string): AppError {
  return new AppError(ErrorCode.UNAUTHENTICATED, `Malformed Authorization header: ${description}`, {
    details: [{ field: 'Authorization', message: description }],
    headers: {
      'WWW-Authenticate': challenge({ error: 'invalid_request', error_description: description }),
    },
  });
}

/** The token was read but failed a check; `description` names the check and never the token. */
export function invalidToken(description: string, cause?: unknown): AppError {
  return new AppError(ErrorCode.UNAUTHENTICATED, `Invalid bearer token: ${description}`, {
    details: [{ field: 'Authorization', message: description }],
    headers: {
      'WWW-Authenticate': challenge({ error: 'invalid_token', error_description: description }),
    },
    cause,
  });
}

/** A valid token that lacks the scope the operation needs. */
export function insufficientScope(scope: string): AppError {
  return new AppError(ErrorCode.FORBIDDEN, `Insufficient scope: this operation requires the "${scope}" scope`, {
    details: [{ field: 'scope', message: `missing scope ${scope}`, scope }],
    headers: { 'WWW-Authenticate': challenge({ error: 'insufficient_scope', scope }) },
  });
}

/**
 * The identity provider's key set could not be fetched (down, timeout, not JSON). That is our
 * problem, not the client's, so it is a 503 rather than a 401 that would make clients drop a good
 * token. Retry-After: when the next fetch will be tried (JWKS_FAILURE_COOLDOWN_MS).
 */
export function keySetUnavailable(cause: unknown, retryAfterSeconds: number): AppError {
  return new AppError(
    ErrorCode.SERVICE_UNAVAILABLE,
    'Token verification is temporarily unavailable: the signing keys of the identity provider could not be fetched',
    { cause, headers: { 'Retry-After': String(retryAfterSeconds) } },
  );
}

/**
 * The key set is known not to be fetchable (a fetch failed less than JWKS_FAILURE_COOLDOWN_MS ago,
 * or the one retry is under way): the 503 at once, without a fetch of this request's own.
 */
export function keySetKnownUnavailable(failingForMs: number, retryAfterSeconds: number): AppError {
  const seconds = Math.floor(failingForMs / 1000);
  return new AppError(
    ErrorCode.SERVICE_UNAVAILABLE,
    `Token verification is temporarily unavailable: the signing keys of the identity provider cannot be fetched (failing for ${seconds} s); the token was not checked, try again in ${retryAfterSeconds} s`,
    { headers: { 'Retry-After': String(retryAfterSeconds) } },
  );
}

function challenge(params: Record<string, string>): string {
  const parts = [`realm="${REALM}"`];
  for (const [name, value] of Object.entries(params)) parts.push(`${name}="${quotable(value)}"`);
  return `Bearer ${parts.join(', ')}`;
}

/** RFC 6750 allows only %x20-21 / %x23-5B / %x5D-7E inside these quoted values (no `"` or `\`). */
function quotable(value: string): string {
  return value.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
}
