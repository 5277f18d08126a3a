import { webcrypto } from 'node:crypto';
import {
  importSPKI,
  jwtVerify,
  type CryptoKey,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import { LRUCache } from 'lru-cache';
import type { AuthConfig } from '../config';
import { ConfigError } from '../config';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import { authenticationRequired, invalidToken, keySetUnavailable, malformedCredentials } from './bearer-errors';
import { configuredKeySources, JWKS_ALGORITHMS, missingKeySourceError, readPublicKey, secretKeyBytes } from './keys';
import type { Principal } from './principal';
import { RemoteKeySet, type KeySetState, type RemoteKeySetSettings } from './remote-key-set';

/** Turns an `Authorization` header into a Principal; shared by the GraphQL context and the REST facade. */
export interface TokenVerifier {
  /**
   * Resolves to undefined when there is no Authorization header at all (public operations such as
   * introspection still work; `requireScope` then demands a principal). Rejects with a 401 AppError
   * when a header is present but malformed or its token fails a check, and with a 503 AppError when
   * a remote key set cannot be fetched.
   */
  authenticate(authorizationHeader: string | undefined): Promise<Principal | undefined>;
  /** With JWKS_URL: the key set's age and whether fetching it fails (the /metrics gauges). */
  keySetState?(): KeySetState;
}

/**
 * Tuning of the remote key set (JWKS_URL). The defaults suit production (the time-out, the failure
 * cool-down and the stale-if-error window come from JWKS_TIMEOUT_MS, JWKS_FAILURE_COOLDOWN_MS and
 * JWKS_STALE_IF_ERROR_MS); tests shorten them.
 */
export interface JwksOptions {
  /**
   * After a successful fetch, a token whose `kid` is not in the cached set triggers a new fetch only
   * once this many milliseconds have passed. Rotation still works (identity providers publish a new
   * key before signing with it, and the set is refetched when `cacheMaxAgeMs` runs out), while a
   * flood of tokens with invented `kid`s costs the provider at most one request per cooldown.
   * Default 30 000 (jose's default).
   */
  cooldownDurationMs?: number;
  /** How long a fetched set is used before it is fetched again. Default 600 000 (10 minutes). */
  cacheMaxAgeMs?: number;
  /** Timeout of one key set request. Default JWKS_TIMEOUT_MS. */
  timeoutMs?: number;
  /** After a failed fetch, how long tokens that need one answer 503 at once. Default JWKS_FAILURE_COOLDOWN_MS. */
  failureCooldownMs?: number;
  /** How long past `cacheMaxAgeMs` a set is still used while fetching a new one fails. Default JWKS_STALE_IF_ERROR_MS. */
  staleIfErrorMs?: number;
}

export interface TokenVerifierOptions {
  /** Only used when the key source is JWKS_URL. */
  jwks?: JwksOptions;
  /** Where the key set's failures and recoveries are logged (JWKS_URL). */
  logger?: Logger;
  /** Told each key set fetch's outcome (JWKS_URL; the metrics count them). */
  onKeySetFetch?: (outcome: 'success' | 'failure') => void;
}

/** A JWS in compact serialisation: three base64url parts without padding (RFC 7515 §2, §7.1); `alg: none` has an empty signature. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** RFC 6750 b64token: the only characters a bearer token may have. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Builds the one verifier of the service. Keys are imported once, here, not per request; the
 * accepted algorithms come from the configured key, never from the token's header.
 * Throws ConfigError when no key source (or more than one) is configured or a key is unusable.
 */
export function createTokenVerifier(auth: AuthConfig, options: TokenVerifierOptions = {}): TokenVerifier {
  const source = createKeySource(auth, options);
  const { keySet } = source;
  // exp is required so that no token lives forever; sub is required because audit records need it.
  // `typ` is not enforced: identity providers disagree (JWT, at+jwt); issuer and audience, when
  // configured, are what keep tokens minted for other services out.
  const verifyOptions: JWTVerifyOptions = {
    algorithms: [...source.algorithms],
    requiredClaims: ['exp', 'sub'],
    clockTolerance: auth.clockToleranceSeconds,
    ...(auth.issuer ? { issuer: auth.issuer } : {}),
    ...(auth.audience ? { audience: auth.audience } : {}),
  };

  const { maxLifetimeSeconds, clockToleranceSeconds } = auth;
  const verified = new LRUCache<string, VerifiedToken>({ max: VERIFIED_TOKENS });

  return {
    async authenticate(authorizationHeader) {
      if (authorizationHeader === undefined) return undefined;
      const known = verified.get(authorizationHeader);
      if (known && stillValid(known, clockToleranceSeconds)) return known.principal;
      const token = compactJws(bearerToken(authorizationHeader));
      // Outside the try: a key that failed to import is a server fault (500), not a bad token.
      const key = await source.key();
      let payload: JWTPayload;
      try {
        payload = (await jwtVerify(token, key, verifyOptions)).payload;
      } catch (error) {
        throw verificationError(error, source.algorithms);
      }
      checkLifetime(payload, maxLifetimeSeconds, clockToleranceSeconds);
      const principal = Object.freeze(toPrincipal(payload));
      if (authorizationHeader.length <= VERIFIED_TOKEN_MAX_CHARS) verified.set(authorizationHeader, { principal, exp: payload.exp as number, nbf: payload.nbf }, { ttl: VERIFIED_TOKEN_TTL_MS });
      return principal;
    },
    ...(keySet ? { keySetState: () => keySet.state() } : {}),
  };
}

/**
 * Tokens verified lately, by the exact Authorization header that carried them (its parse and the
 * token's form checks are skipped too: they passed for exactly this text), so a client that sends
 * its token with every request pays for the signature and the claims once a minute, not each
 * time. Only what passed every check is kept, with the two claims that depend on the clock, which
 * are checked again at each use; the rest (signature, algorithm, issuer, audience, sub, lifetime)
 * cannot change for the same text and the same key. A key taken out of a JWKS set stops
 * the tokens it signed within VERIFIED_TOKEN_TTL_MS more (the set itself is used for 10 minutes,
 * longer only while fetching it fails: src/auth/remote-key-set.ts).
 * Bounded: the least recently used go first, and an unknown, refused or very long token is never kept.
 */
const VERIFIED_TOKENS = 1000;
const VERIFIED_TOKEN_TTL_MS = 60_000;
/** Longer headers (rare: an identity provider's tokens are under 2 kB) are verified each time, so the cache stays under about 4 MB. */
const VERIFIED_TOKEN_MAX_CHARS = 4096;

interface VerifiedToken {
  principal: Principal;
  exp: number;
  nbf?: number;
}

/** exp and nbf again, with the clock tolerance, as jose checks them (whole seconds). */
function stillValid(token: VerifiedToken, toleranceSeconds: number): boolean {
  const now = Math.floor(Date.now() / 1000);
  return token.exp > now - toleranceSeconds && (token.nbf === undefined || token.nbf <= now + toleranceSeconds);
}

interface KeySource {
  algorithms: readonly string[];
  /** The imported key (resolved once) or, for JWKS, jose's resolver by `kid`. */
  key(): Promise<CryptoKey | JWTVerifyGetKey> | CryptoKey | JWTVerifyGetKey;
  /** With JWKS_URL. */
  keySet?: RemoteKeySet;
}

function createKeySource(auth: AuthConfig, options: TokenVerifierOptions): KeySource {
  const sources = configuredKeySources(auth);
  if (sources.length === 0) throw missingKeySourceError('to verify bearer tokens');
  if (sources.length > 1) {
    throw new ConfigError(sources[1], `cannot be set together with ${sources[0]}: choose one key source`);
  }

  if (auth.jwtSecret) {
    const bytes = secretKeyBytes(auth.jwtSecret);
    // A CryptoKey, not the raw bytes: jose would re-import raw bytes on every verification.
    return importedOnce(['HS256'], () =>
      webcrypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']) as Promise<CryptoKey>,
    );
  }
  if (auth.jwtPublicKey) {
    const pem = auth.jwtPublicKey;
    // Read synchronously first so that a bad key fails at start-up with a ConfigError.
    const { algorithm } = readPublicKey(pem);
    return importedOnce([algorithm], () => importSPKI(pem, algorithm));
  }

  const jwks = options.jwks ?? {};
  const settings: RemoteKeySetSettings = {
    cooldownDurationMs: jwks.cooldownDurationMs ?? 30_000,
    cacheMaxAgeMs: jwks.cacheMaxAgeMs ?? JWKS_CACHE_MAX_AGE_MS,
    timeoutMs: jwks.timeoutMs ?? auth.jwksTimeoutMs,
    failureCooldownMs: jwks.failureCooldownMs ?? auth.jwksFailureCooldownMs,
    staleIfErrorMs: jwks.staleIfErrorMs ?? auth.jwksStaleIfErrorMs,
  };
  const keySet = new RemoteKeySet(new URL(auth.jwksUrl as string), settings, options.logger, options.onKeySetFetch);
  const resolveKey: JWTVerifyGetKey = async (header, token) => {
    try {
      return await keySet.getKey(header, token);
    } catch (error) {
      // An unknown kid is the token's fault; the key set's own 503s pass; anything else (a key the
      // set holds that cannot be imported) is ours.
      if (error instanceof AppError || hasJoseCode(error, 'ERR_JWKS_NO_MATCHING_KEY') || hasJoseCode(error, 'ERR_JWKS_MULTIPLE_MATCHING_KEYS')) {
        throw error;
      }
      throw keySetUnavailable(error, Math.max(1, Math.ceil(settings.failureCooldownMs / 1000)));
    }
  };
  return { algorithms: JWKS_ALGORITHMS, key: () => resolveKey, keySet };
}

/** How long a fetched key set is used before it is fetched again (jose's default; the docs say ten minutes). */
const JWKS_CACHE_MAX_AGE_MS = 600_000;

function importedOnce(algorithms: string[], load: () => Promise<CryptoKey>): KeySource {
  let key: CryptoKey | undefined;
  const loading = load().then((loaded) => (key = loaded));
  // Keeps an import failure from being reported as unhandled before the first request awaits it.
  loading.catch(() => undefined);
  return { algorithms, key: () => key ?? loading };
}

/** `Bearer <token>`, scheme case-insensitive (RFC 7235), exactly one b64token after it. */
function bearerToken(header: string): string {
  const value = header.trim();
  if (value === '') throw malformedCredentials('the Authorization header is empty');
  const [scheme, ...rest] = value.split(/[ \t]+/);
  if (scheme.toLowerCase() !== 'bearer') {
    throw authenticationRequired('Unsupported authorization scheme: send Authorization: Bearer <token>');
  }
  if (rest.length === 0) throw malformedCredentials('the Bearer token is empty');
  if (rest.length > 1) throw malformedCredentials('expected exactly one token after Bearer');
  const [token] = rest;
  if (!B64TOKEN.test(token)) throw malformedCredentials('the token contains characters a bearer token cannot have');
  return token;
}

/**
 * One token, one spelling: padding (`=`) and non-zero spare bits in the last base64url character
 * of the signature decode to the same bytes, so they would give one signed token several accepted
 * spellings (and several cache or revocation keys). Both are refused.
 */
function compactJws(token: string): string {
  if (!COMPACT_JWS.test(token)) throw invalidToken('the token is not a JWT in compact form (three base64url parts without padding)');
  const signature = token.slice(token.lastIndexOf('.') + 1);
  if (Buffer.from(signature, 'base64url').toString('base64url') !== signature) {
    throw invalidToken('the signature is not in canonical base64url');
  }
  return token;
}

/** exp must be a finite time within the configured lifetime from now (1e300 is not "valid for ever"). */
function checkLifetime(payload: JWTPayload, maxSeconds: number, toleranceSeconds: number): void {
  const remaining = (payload.exp as number) - Date.now() / 1000;
  if (!Number.isFinite(remaining) || remaining > maxSeconds + toleranceSeconds) {
    throw invalidToken(`the token lives longer than the accepted maximum of ${maxSeconds} seconds (exp)`);
  }
}

function toPrincipal(payload: JWTPayload): Principal {
  if (typeof payload.sub !== 'string' || payload.sub.trim() === '') {
    throw invalidToken('the sub claim must be a non-empty string');
  }
  if (payload.jti !== undefined && typeof payload.jti !== 'string') {
    throw invalidToken('the jti claim must be a string');
  }
  return {
    subject: payload.sub,
    scopes: grantedScopes(payload),
    ...(payload.jti !== undefined ? { tokenId: payload.jti } : {}),
  };
}

/**
 * `scope` is a space-separated string (RFC 8693, RFC 6749 §3.3); `scp` is an array (Okta) or a
 * string (Entra ID). The separator is the space (U+0020) alone: other white space (a tab, a line
 * break, U+00A0, U+2003…) is part of a scope, so `x\u00a0timeline:read` grants no `timeline:read`.
 * Spaces in a row, or around the list, separate nothing more.
 */
function grantedScopes(payload: JWTPayload): ReadonlySet<string> {
  const scopes = new Set<string>();
  const addAll = (value: string) => value.split(' ').filter(Boolean).forEach((scope) => scopes.add(scope));
  const { scope, scp } = payload;
  if (scope !== undefined) {
    if (typeof scope !== 'string') throw invalidToken('the scope claim must be a space-separated string');
    addAll(scope);
  }
  if (scp !== undefined) {
    if (typeof scp === 'string') addAll(scp);
    else if (Array.isArray(scp) && scp.every((item) => typeof item === 'string')) scp.forEach(addAll);
    else throw invalidToken('the scp claim must be a string or an array of strings');
  }
  return scopes;
}

/**
 * Names the check that failed, in our own words: jose's messages are fine but ours are stable,
 * contain no quotes (they go into a quoted header value) and can never include the token.
 */
function verificationError(error: unknown, algorithms: readonly string[]): AppError {
  if (error instanceof AppError) return error;
  const code = (error as { code?: unknown } | undefined)?.code;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return invalidToken('the token has expired (exp)', error);
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return invalidToken(describeClaimFailure(error as { claim?: string; reason?: string }), error);
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return invalidToken(`the token algorithm is not accepted; expected ${algorithms.join(', ')}`, error);
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return invalidToken('signature verification failed', error);
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return invalidToken('the token is not a well-formed signed JWT', error);
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return invalidToken('no key of the identity provider matches the token kid', error);
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return invalidToken('several keys of the identity provider match; the token must name one with kid', error);
    case 'ERR_JOSE_NOT_SUPPORTED':
      return invalidToken('the token uses an unsupported algorithm or key type', error);
    default:
      return invalidToken('the token could not be verified', error);
  }
}

function describeClaimFailure({ claim, reason }: { claim?: string; reason?: string }): string {
  if (reason === 'missing') return `the token has no ${claim} claim`;
  if (reason === 'invalid') return `the ${claim} claim must be a number`;
  switch (claim) {
    case 'nbf':
      return 'the token is not valid yet (nbf)';
    case 'iss':
      return 'unexpected issuer (iss)';
    case 'aud':
      return 'unexpected audience (aud)';
    default:
      return `the ${claim ?? 'claims'} check failed`;
  }
}

function hasJoseCode(error: unknown, code: string): boolean {
  return (error as { code?: unknown } | undefined)?.code === code;
}
