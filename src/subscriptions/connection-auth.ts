import { decodeJwt } from 'jose';
import type { Principal, RequestAuthenticator } from '../auth';
import { Scope } from '../auth';
import { AppError, ErrorCode } from '../errors';
import { CloseCode } from './close-codes';

/** The scopes some subscription needs: a token with none of them cannot use the connection. */
export const SUBSCRIPTION_SCOPES: readonly Scope[] = [Scope.TimelineRead, Scope.PassengersRead];

/** Why a connection is refused: the close code and the reason sent with it. */
export class ConnectionRefused extends Error {
  constructor(
    readonly code: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'ConnectionRefused';
  }
}

export interface ConnectionIdentity {
  principal: Principal;
  /** When HTTP would start refusing the token (its `exp` plus the clock tolerance), in epoch milliseconds. */
  endsAt: number;
}

const HOW_TO_SEND = "send { authorization: 'Bearer <token>' } as connection_init's payload";

/**
 * The credentials of `connection_init`'s payload: an `authorization` entry at the top level (what
 * Apollo Client's and urql's documentation write, as `authorization` or `Authorization`) or under
 * `headers` (the shape of some gateways' clients). Names are matched case-insensitively, as HTTP
 * header names are; two of them (or one in each place) are refused rather than one picked, for the
 * reason HTTP refuses two Authorization headers.
 */
export function connectionAuthorization(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!params) return undefined;
  const found: unknown[] = [];
  const collect = (source: object) => {
    for (const [name, value] of Object.entries(source)) if (name.toLowerCase() === 'authorization') found.push(value);
  };
  collect(params);
  const headers = params.headers;
  if (headers !== null && typeof headers === 'object' && !Array.isArray(headers)) collect(headers);
  if (found.length === 0) return undefined;
  if (found.length > 1) throw new ConnectionRefused(CloseCode.Unauthorized, `Malformed credentials: ${found.length} authorization entries in connection_init, send one`);
  const [value] = found;
  if (typeof value !== 'string') throw new ConnectionRefused(CloseCode.Unauthorized, `Malformed credentials: authorization must be a string, 'Bearer <token>'`);
  return value;
}

/**
 * Verifies a connection's token with the service's own authenticator (the HTTP checks, to the
 * letter), then demands one of the subscription scopes. The verifier hands out no expiry, so it is
 * read from the token it has just accepted.
 */
export async function authenticateConnection(
  authenticate: RequestAuthenticator,
  params: Readonly<Record<string, unknown>> | undefined,
  clockToleranceSeconds: number,
): Promise<ConnectionIdentity> {
  const authorization = connectionAuthorization(params);
  if (authorization === undefined) throw new ConnectionRefused(CloseCode.Unauthorized, `Authentication required: ${HOW_TO_SEND}`);
  let principal: Principal | undefined;
  try {
    principal = await authenticate({ headers: { authorization } });
  } catch (error) {
    throw refusalFor(error);
  }
  if (!principal) throw new ConnectionRefused(CloseCode.Unauthorized, `Authentication required: ${HOW_TO_SEND}`);
  if (!SUBSCRIPTION_SCOPES.some((scope) => principal.scopes.has(scope))) {
    throw new ConnectionRefused(CloseCode.Forbidden, `Insufficient scope: subscriptions need ${SUBSCRIPTION_SCOPES.join(' or ')}`);
  }
  const token = authorization.trim().split(/[ \t]+/)[1];
  const exp = decodeJwt(token).exp as number;
  return { principal, endsAt: (exp + clockToleranceSeconds) * 1000 };
}

/** The verifier's 401 becomes 4401 with its message; its 503 (key set unreachable) a retryable 1013. */
function refusalFor(error: unknown): Error {
  if (error instanceof AppError && error.code === ErrorCode.UNAUTHENTICATED) return new ConnectionRefused(CloseCode.Unauthorized, error.message);
  if (error instanceof AppError && error.code === ErrorCode.SERVICE_UNAVAILABLE) {
    return new ConnectionRefused(CloseCode.ServiceUnavailable, 'Token verification is temporarily unavailable: retry shortly');
  }
  return error instanceof Error ? error : new Error(String(error));
}
