import {
  createLocalJWKSet,
  createRemoteJWKSet,
  jwksCache,
  type CryptoKey,
  type ExportedJWKSCache,
  type FlattenedJWSInput,
  type JWKSCacheInput,
  type JWSHeaderParameters,
  type JWTVerifyGetKey,
  type RemoteJWKSet,
} from 'jose';
import type { Logger } from '../logger';
import { keySetKnownUnavailable, keySetUnavailable } from './bearer-errors';

/** How the identity provider's key set (JWKS_URL) is fetched, kept and fallen back on. */
export interface RemoteKeySetSettings {
  /** Longest one fetch may take (JWKS_TIMEOUT_MS). */
  timeoutMs: number;
  /** How long a fetched set is used before it is fetched again (10 minutes). */
  cacheMaxAgeMs: number;
  /** After a successful fetch, how long a token with a `kid` not in the set is refused without another fetch (30 s). */
  cooldownDurationMs: number;
  /** After a failed fetch, how long no other is tried; tokens that need one answer 503 at once (JWKS_FAILURE_COOLDOWN_MS). */
  failureCooldownMs: number;
  /** How long past `cacheMaxAgeMs` a set still verifies tokens while fetching a new one fails (JWKS_STALE_IF_ERROR_MS). */
  staleIfErrorMs: number;
}

/** What the /metrics gauges show. */
export interface KeySetState {
  /** Milliseconds since the set in use was fetched; undefined before the first fetch. */
  ageMs: number | undefined;
  /** The last fetch failed (the cool-down and the stale set apply). */
  failing: boolean;
}

/**
 * The identity provider's key set, fetched and kept by jose (`createRemoteJWKSet`: the request, its
 * time-out, the checks of what it answers, one fetch at a time; the set and when it was fetched are
 * read through its `jwksCache` export), looked up by `kid` with jose's `createLocalJWKSet`. jose
 * alone cannot say when to fetch: a set older than its `cacheMaxAge` or an unknown `kid` made every
 * token wait for a fetch, a failed fetch was forgotten (the next token fetched again and waited
 * again) and a set it could not refresh was no longer used. So the when is decided here:
 *
 * - One fetch at a time: every token that needs the set waits for the same one.
 * - A failed fetch is remembered for `failureCooldownMs`: meanwhile no fetch is tried and a token
 *   that needs one answers 503 at once, with Retry-After. The first token after the cool-down tries
 *   again (and waits for it); others arriving meanwhile do not wait.
 * - A set due for refresh still verifies tokens when the refresh fails, for at most
 *   `staleIfErrorMs` past its `cacheMaxAgeMs` (stale-if-error); while fetches fail, it is used at once
 *   and refreshed in the background after each cool-down. While fetches succeed, a set due for
 *   refresh is not used before the refresh answered, so a key withdrawn from the set stops as soon.
 */
export class RemoteKeySet {
  private readonly cache: JWKSCacheInput = {};
  private readonly remote: RemoteJWKSet;
  private local: { fetchedAt: number; resolve: ReturnType<typeof createLocalJWKSet> } | undefined;
  private fetching: { promise: Promise<void>; startedAt: number } | undefined;
  /** Since when fetches fail (the first failure in a row), and when the last one failed. */
  private failure: { since: number; at: number } | undefined;
  /** The fetch time of a set whose end of use (beyond staleIfErrorMs) was logged. */
  private expiryLogged: number | undefined;

  constructor(
    url: URL,
    private readonly settings: RemoteKeySetSettings,
    private readonly logger?: Logger,
    /** Told each fetch's outcome (the metrics count them). */
    private readonly onFetch?: (outcome: 'success' | 'failure') => void,
  ) {
    this.remote = createRemoteJWKSet(url, {
      timeoutDuration: settings.timeoutMs,
      cacheMaxAge: settings.cacheMaxAgeMs,
      cooldownDuration: settings.cooldownDurationMs,
      [jwksCache]: this.cache,
    });
  }

  /** jose's key resolver for `jwtVerify`. Rejects with jose's errors for the token's faults, with a 503 AppError for the key set's. */
  readonly getKey: JWTVerifyGetKey = (header, token) => this.key(header, token);

  state(now = Date.now()): KeySetState {
    const fetchedAt = this.fetchedAt();
    return { ageMs: fetchedAt === undefined ? undefined : now - fetchedAt, failing: this.failure !== undefined };
  }

  private async key(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> {
    if (!this.remote.fresh) await this.renew();
    try {
      return await this.lookup(header, token);
    } catch (error) {
      // A kid not in the set may have been published since it was fetched: one fetch to look, at
      // most once per cooldownDurationMs after a success.
      if ((error as { code?: unknown } | undefined)?.code !== 'ERR_JWKS_NO_MATCHING_KEY' || this.remote.coolingDown) throw error;
      await this.fetchNow();
      return this.lookup(header, token);
    }
  }

  /** The set is missing or due for refresh: fetch it, or fall back on the one held while fetches fail. */
  private async renew(): Promise<void> {
    if (this.failure && this.usable(Date.now())) {
      this.refreshInBackground();
      return;
    }
    try {
      await this.fetchNow();
    } catch (error) {
      if (this.usable(Date.now())) return;
      throw error;
    }
  }

  /**
   * The fetch every caller waits for: the one under way, or a new one. While fetches fail, a new
   * one is tried only after the cool-down, and only its first caller waits for it: the others
   * answer 503 at once.
   */
  private fetchNow(): Promise<void> {
    const now = Date.now();
    if (this.fetching) {
      if (!this.failure) return this.fetching.promise;
      throw this.notTried(now, this.fetching.startedAt + this.settings.timeoutMs);
    }
    if (this.failure && now < this.failure.at + this.settings.failureCooldownMs) {
      throw this.notTried(now, this.failure.at + this.settings.failureCooldownMs);
    }
    return this.startFetch(now);
  }

  private refreshInBackground(): void {
    const now = Date.now();
    if (this.fetching || (this.failure && now < this.failure.at + this.settings.failureCooldownMs)) return;
    // Failures are remembered and logged by startFetch; nobody waits for this one.
    this.startFetch(now).catch(() => undefined);
  }

  private startFetch(now: number): Promise<void> {
    const promise = this.remote
      .reload()
      .then(
        () => this.succeeded(),
        (error: unknown) => {
          this.failed(error);
          throw keySetUnavailable(error, retryAfterSeconds(this.settings.failureCooldownMs));
        },
      )
      .finally(() => {
        if (this.fetching?.promise === promise) this.fetching = undefined;
      });
    this.fetching = { promise, startedAt: now };
    return promise;
  }

  private succeeded(): void {
    this.onFetch?.('success');
    if (this.failure) {
      this.logger?.info({ failingForMs: Date.now() - this.failure.since }, 'the identity provider’s key set (JWKS_URL) was fetched again: tokens are verified with its current keys');
    }
    this.failure = undefined;
    this.expiryLogged = undefined;
  }

  private failed(error: unknown): void {
    this.onFetch?.('failure');
    const now = Date.now();
    const first = !this.failure;
    this.failure = { since: this.failure?.since ?? now, at: now };
    const fields = { err: { message: describe(error) }, retryInMs: this.settings.failureCooldownMs, ...this.staleWindow() };
    if (first) {
      this.logger?.warn(
        fields,
        'cannot fetch the identity provider’s key set (JWKS_URL): tokens that need it answer 503 at once until a fetch succeeds (one is tried each JWKS_FAILURE_COOLDOWN_MS); the keys fetched before, if any, verify tokens until keysUsableUntil',
      );
    } else {
      this.logger?.debug(fields, 'the identity provider’s key set (JWKS_URL) still cannot be fetched');
    }
  }

  /** When the set held was fetched and until when it may be used while fetches fail. */
  private staleWindow(): { keysFetchedAt?: string; keysUsableUntil?: string } {
    const fetchedAt = this.fetchedAt();
    if (fetchedAt === undefined) return {};
    return { keysFetchedAt: new Date(fetchedAt).toISOString(), keysUsableUntil: new Date(this.usableUntil(fetchedAt)).toISOString() };
  }

  /** Whether the set held may verify tokens now: fresh, or stale within staleIfErrorMs. */
  private usable(now: number): boolean {
    const fetchedAt = this.fetchedAt();
    if (fetchedAt === undefined) return false;
    if (now < this.usableUntil(fetchedAt)) return true;
    if (this.failure && this.expiryLogged !== fetchedAt) {
      this.expiryLogged = fetchedAt;
      this.logger?.warn(
        { keysFetchedAt: new Date(fetchedAt).toISOString() },
        'the identity provider’s key set held is too old to be used (JWKS_STALE_IF_ERROR_MS): tokens not verified lately answer 503 until a fetch succeeds',
      );
    }
    return false;
  }

  private usableUntil(fetchedAt: number): number {
    return fetchedAt + this.settings.cacheMaxAgeMs + this.settings.staleIfErrorMs;
  }

  private fetchedAt(): number | undefined {
    return (this.cache as Partial<ExportedJWKSCache>).uat;
  }

  /** The held set's resolver, made once per fetch (it keeps the keys it imported). */
  private lookup(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> {
    const { uat, jwks } = this.cache as Partial<ExportedJWKSCache>;
    if (uat === undefined || jwks === undefined) throw new Error('no key set held');
    if (this.local?.fetchedAt !== uat) this.local = { fetchedAt: uat, resolve: createLocalJWKSet(jwks) };
    return this.local.resolve(header, token);
  }

  private notTried(now: number, retryAt: number) {
    return keySetKnownUnavailable(now - (this.failure?.since ?? now), retryAfterSeconds(retryAt - now));
  }
}

/** Whole seconds, at least one: what Retry-After can say. */
function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** jose's message, with the network error under it (fetch's "fetch failed" says nothing alone). */
function describe(error: unknown): string {
  const { message, cause } = (error ?? {}) as { message?: string; cause?: { code?: string; message?: string } };
  const detail = cause?.code ?? cause?.message;
  return detail && message && !message.includes(detail) ? `${message} (${detail})` : (message ?? String(error));
}
