import type { IncomingHttpHeaders } from 'node:http';
import { malformedCredentials } from './bearer-errors';
import type { Principal } from './principal';
import type { TokenVerifier } from './token-verifier';

/** The part of an HTTP request that carries credentials (Node's IncomingMessage satisfies it). */
export interface CredentialsRequest {
  headers: IncomingHttpHeaders;
  /** Names and values as received, alternating; Node keeps only the first Authorization in `headers`. */
  rawHeaders?: string[];
}

/** Resolves a request's principal (undefined without a token); rejects with the 401 a bad token earns. */
export type RequestAuthenticator = (req: CredentialsRequest) => Promise<Principal | undefined>;

/**
 * Verifies each request's token once, however many steps ask (the rate limit keyed by subject, then
 * the GraphQL context). Two Authorization headers are refused: Node would silently keep the first,
 * and a proxy in front may have checked the other.
 */
export function createRequestAuthenticator(verifier: TokenVerifier): RequestAuthenticator {
  const verified = new WeakMap<CredentialsRequest, Promise<Principal | undefined>>();
  return (req) => {
    let principal = verified.get(req);
    if (!principal) {
      principal = authenticateOnce(verifier, req);
      // Observed by whoever awaits it; a step that only peeks must not leave an unhandled rejection.
      principal.catch(() => undefined);
      verified.set(req, principal);
    }
    return principal;
  };
}

async function authenticateOnce(verifier: TokenVerifier, req: CredentialsRequest): Promise<Principal | undefined> {
  const count = req.rawHeaders ? authorizationHeaders(req.rawHeaders) : 0;
  if (count > 1) throw malformedCredentials(`send one Authorization header, got ${count}`);
  return verifier.authenticate(req.headers.authorization);
}

/** How many Authorization headers a request carried (counted in its raw headers: Node's `headersDistinct` builds an object of every header first). */
function authorizationHeaders(rawHeaders: string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 13 && name.toLowerCase() === 'authorization') count += 1;
  }
  return count;
}
