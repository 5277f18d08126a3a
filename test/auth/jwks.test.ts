import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import {
  ENDPOINTS,
  expectRejected,
  GRAPHQL,
  invalidToken,
  nowSeconds,
  REST,
  secretBytes,
  signToken,
  unsignedToken,
  type Endpoint,
  type Rejection,
} from '../helpers/auth-requests';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/test-app';
import { loadConfig } from '../../src/config';
import { createLogger, type Logger } from '../../src/logger';
import { Metrics } from '../../src/metrics/metrics';
import { eventually } from '../webhooks/webhook-receiver';

interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(kid: string, alg: 'ES256' | 'RS256' | 'EdDSA'): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

function claims(overrides: JWTPayload = {}): JWTPayload {
  const now = nowSeconds();
  return { sub: 'idp-user', scope: 'timeline:read', iat: now, exp: now + 3600, ...overrides };
}

/** A token signed by `key`, naming `kid` in its header (none when empty). */
const tokenFrom = (key: SigningKey, { kid = key.kid, ...overrides }: JWTPayload & { kid?: string } = {}) =>
  signToken(claims(overrides), key.privateKey, { alg: key.alg, ...(kid ? { kid } : {}) });

/**
 * A stand-in identity provider on 127.0.0.1: serves whatever key set the test publishes and counts
 * fetches. With `hang`, it reads a request and never answers it (until it stops).
 */
class KeySetServer {
  published: JWK[] = [];
  status = 200;
  hang = false;
  fetches = 0;
  private readonly server: Server = createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    this.fetches += 1;
    if (this.hang) return;
    res.writeHead(this.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(this.status === 200 ? { keys: this.published } : { error: 'down' }));
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/.well-known/jwks.json`;
  }

  stop(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.close((error) => (error ? reject(error) : resolve()));
      this.server.closeAllConnections();
    });
  }
}

/**
 * `startTestApp` mints a token as it starts, which needs JWT_SECRET or JWT_PRIVATE_KEY; with JWKS_URL
 * alone it throws. An unpublished private key satisfies it (JWT_PRIVATE_KEY is not a key source,
 * the service never verifies with it); the tokens it mints are not used here.
 */
const MINTING_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

type AppOptions = { metrics?: Metrics; logger?: Logger };

function startJwksApp(name: string, jwksUrl: string, env: Record<string, string> = {}, options: AppOptions = {}): Promise<TestApp> {
  return startTestApp(name, { JWT_SECRET: '', JWKS_URL: jwksUrl, JWT_PRIVATE_KEY: MINTING_KEY, ...env }, options);
}

/** The real app verifying against a fresh identity provider that publishes `keys`. */
async function startWithKeySet(
  name: string,
  keys: JWK[],
  env: Record<string, string> = {},
  options: AppOptions = {},
): Promise<{ idp: KeySetServer; testApp: TestApp; stop(): Promise<void> }> {
  const idp = new KeySetServer();
  idp.published = keys;
  const jwksUrl = await idp.start();
  const testApp = await startJwksApp(name, jwksUrl, env, options).catch(async (error: unknown) => {
    await idp.stop();
    throw error;
  });
  return { idp, testApp, stop: () => testApp.close().finally(() => idp.stop()) };
}

const send = (endpoint: Endpoint, testApp: TestApp, token: string) => endpoint.send(testApp.app, { authorization: `Bearer ${token}` });

const ALGORITHMS_REFUSED = invalidToken('the token algorithm is not accepted; expected RS256, RS384, RS512, PS256, ES256, ES384, EdDSA');

let keyA: SigningKey;
let keyB: SigningKey;
let keyC: SigningKey;
let unpublished: SigningKey;
beforeAll(async () => {
  [keyA, keyB, keyC, unpublished] = await Promise.all([
    signingKey('key-a', 'ES256'),
    signingKey('key-b', 'RS256'),
    signingKey('key-c', 'ES256'),
    signingKey('key-x', 'ES256'),
  ]);
});

describe('bearer tokens verified against a key set (JWKS_URL)', () => {
  let idp: KeySetServer;
  let testApp: TestApp;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ idp, testApp, stop } = await startWithKeySet('auth_jwks', [keyA.jwk, keyC.jwk]));
  });
  afterAll(() => stop());

  const REJECTIONS: Array<{ name: string; token: () => Promise<string>; expected: Rejection }> = [
    { name: 'an unknown kid', token: () => tokenFrom(unpublished), expected: invalidToken('no key of the identity provider matches the token kid') },
    {
      name: 'a published kid on a token signed with another key',
      token: () => tokenFrom(unpublished, { kid: keyA.kid }),
      expected: invalidToken('signature verification failed'),
    },
    {
      name: 'no kid while several published keys could match',
      token: () => tokenFrom(keyA, { kid: '' }),
      expected: invalidToken('several keys of the identity provider match; the token must name one with kid'),
    },
    { name: 'an HS256 token naming a published kid', token: () => signToken(claims(), secretBytes(TEST_SECRET), { alg: 'HS256', kid: keyA.kid }), expected: ALGORITHMS_REFUSED },
    { name: 'alg: none', token: async () => unsignedToken(claims()), expected: ALGORITHMS_REFUSED },
    { name: 'an expired token', token: () => tokenFrom(keyA, { exp: nowSeconds() - 120 }), expected: invalidToken('the token has expired (exp)') },
  ];

  describe.each(ENDPOINTS)('on $name', (endpoint) => {
    it.each([
      ['key-a', () => keyA],
      ['key-c', () => keyC],
    ])('accepts a token signed with the published key %s', async (_kid, key) => {
      endpoint.expectAccepted(await send(endpoint, testApp, await tokenFrom(key())));
    });

    it.each(REJECTIONS)('refuses $name', async ({ token, expected }) => {
      const forged = await token();
      expectRejected(endpoint, await send(endpoint, testApp, forged), expected, forged);
    });
  });

  describe('afterwards', () => {
    it('has fetched the key set once for all of the above: unknown kids do not reach the identity provider within the cooldown', () => {
      // Everything above runs well within the verifier's 30 s cooldown.
      expect(idp.fetches).toBe(1);
    });
  });
});

describe('the key set is fetched only when a token needs it', () => {
  it('refuses HS256 and alg: none without asking the identity provider', async () => {
    const { idp, testApp, stop } = await startWithKeySet('auth_jwks_nofetch', [keyA.jwk]);
    try {
      for (const endpoint of ENDPOINTS) {
        const hs256 = await signToken(claims(), secretBytes(TEST_SECRET), { alg: 'HS256', kid: keyA.kid });
        expectRejected(endpoint, await send(endpoint, testApp, hs256), ALGORITHMS_REFUSED, hs256);
        expectRejected(endpoint, await send(endpoint, testApp, unsignedToken(claims())), ALGORITHMS_REFUSED);
      }
      expect(idp.fetches).toBe(0);
    } finally {
      await stop();
    }
  });
});

/**
 * Key rotation through the real app. Its verifier keeps jose's defaults (a kid not in the cached set
 * triggers a refetch only 30 s after the last fetch; the set is refetched after 10 minutes anyway),
 * and `startTestApp` cannot shorten them, so the test moves the clock the key set cache reads
 * (`Date.now`) instead of waiting. Token lifetimes are checked against `new Date()` and stay real.
 */
describe('key rotation', () => {
  let idp: KeySetServer;
  let testApp: TestApp;
  let stop: () => Promise<void>;
  let clockOffsetMs = 0;
  beforeAll(async () => {
    ({ idp, testApp, stop } = await startWithKeySet('auth_jwks_rotation', [keyA.jwk]));
    const realNow = Date.now.bind(Date);
    jest.spyOn(Date, 'now').mockImplementation(() => realNow() + clockOffsetMs);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await stop();
  });

  const expectAcceptedEverywhere = async (key: SigningKey) => {
    for (const endpoint of ENDPOINTS) endpoint.expectAccepted(await send(endpoint, testApp, await tokenFrom(key)));
  };
  const expectUnknownKidEverywhere = async (key: SigningKey) => {
    for (const endpoint of ENDPOINTS) {
      const token = await tokenFrom(key);
      expectRejected(endpoint, await send(endpoint, testApp, token), invalidToken('no key of the identity provider matches the token kid'), token);
    }
  };

  it('uses the current key, fetching the set once', async () => {
    await expectAcceptedEverywhere(keyA);
    expect(idp.fetches).toBe(1);
  });

  it('refuses a kid published after the last fetch while the cooldown lasts, without asking again', async () => {
    idp.published = [keyA.jwk, keyB.jwk];
    await expectUnknownKidEverywhere(keyB);
    expect(idp.fetches).toBe(1);
  });

  it('accepts the new kid once the cooldown has passed, refetching the set once', async () => {
    clockOffsetMs = 31_000;
    await expectAcceptedEverywhere(keyB);
    expect(idp.fetches).toBe(2);
    await expectAcceptedEverywhere(keyA);
    expect(idp.fetches).toBe(2);
  });

  it('stops accepting a retired key once the cached set is older than 10 minutes', async () => {
    idp.published = [keyB.jwk];
    clockOffsetMs = 31_000 + 601_000;
    await expectUnknownKidEverywhere(keyA);
    expect(idp.fetches).toBe(3);
    await expectAcceptedEverywhere(keyB);
    expect(idp.fetches).toBe(3);
  });
});

describe('an identity provider that cannot answer', () => {
  /** 503: the token may be fine, the service cannot check it; a 401 would make clients drop it. */
  const expectUnavailable = (endpoint: Endpoint, res: Awaited<ReturnType<typeof send>>) => {
    expect(res.status).toBe(503);
    expect(res.headers['www-authenticate']).toBeUndefined();
    const code = endpoint.name === 'REST' ? res.body.error.code : res.body.errors[0].extensions.code;
    expect(code).toBe('SERVICE_UNAVAILABLE');
  };

  it('answers 503, not 401, when the key set request fails', async () => {
    const { idp, testApp, stop } = await startWithKeySet('auth_jwks_down', [keyA.jwk]);
    idp.status = 500;
    try {
      for (const endpoint of ENDPOINTS) expectUnavailable(endpoint, await send(endpoint, testApp, await tokenFrom(keyA)));
    } finally {
      await stop();
    }
  });

  it('answers 503 when the identity provider cannot be reached', async () => {
    const gone = new KeySetServer();
    const goneUrl = await gone.start();
    await gone.stop();
    const testApp = await startJwksApp('auth_jwks_gone', goneUrl);
    try {
      for (const endpoint of ENDPOINTS) expectUnavailable(endpoint, await send(endpoint, testApp, await tokenFrom(keyA)));
    } finally {
      await testApp.close();
    }
  });
});

/**
 * An identity provider that hangs or fails. Requests that need its key set share one fetch; a
 * failed fetch is remembered for JWKS_FAILURE_COOLDOWN_MS (10 s), during which they answer 503 at
 * once, with Retry-After and without a fetch of their own; keys fetched before keep verifying tokens
 * up to JWKS_STALE_IF_ERROR_MS past their ten minutes. As in the rotation tests, the clock the key
 * set reads (`Date.now`) is moved past the cool-downs rather than waited for; a hung fetch ends at
 * JWKS_TIMEOUT_MS, real time.
 */
describe('an identity provider that hangs or fails', () => {
  let clockOffsetMs = 0;
  beforeAll(() => {
    const realNow = Date.now.bind(Date);
    jest.spyOn(Date, 'now').mockImplementation(() => realNow() + clockOffsetMs);
  });
  afterAll(() => jest.restoreAllMocks());
  beforeEach(() => {
    clockOffsetMs = 0;
  });

  /** The fetch this request waited for failed. */
  const FETCH_FAILED = /(^|: )Token verification is temporarily unavailable: the signing keys of the identity provider could not be fetched$/;
  /** Answered at once: a fetch failed lately, or the one retry is under way. */
  const NOT_TRIED = /(^|: )Token verification is temporarily unavailable: the signing keys of the identity provider cannot be fetched \(failing for \d+ s\); the token was not checked, try again in \d+ s$/;

  /** Asserts a 503 SERVICE_UNAVAILABLE with `message`; returns its Retry-After in seconds. */
  const expectUnavailable = (endpoint: Endpoint, res: Awaited<ReturnType<typeof send>>, message: RegExp): number => {
    expect(res.status).toBe(503);
    expect(res.headers['www-authenticate']).toBeUndefined();
    const error = endpoint.name === 'REST' ? res.body.error : { ...res.body.errors[0], code: res.body.errors[0].extensions.code };
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(message) });
    return Number(res.headers['retry-after']);
  };

  /** A token seen for the first time (not in the verifier's cache of verified tokens). */
  const freshToken = (key: SigningKey) => tokenFrom(key, { jti: randomUUID() });

  /** A sample of the app's metrics (`pattern` a regular expression of its name and labels). */
  const sample = async (metrics: Metrics, pattern: string): Promise<number | undefined> => {
    const match = new RegExp(`^${pattern} (\\S+)$`, 'm').exec((await metrics.exposition()).body);
    return match ? Number(match[1]) : undefined;
  };

  it('answers 503 at once while it hangs: one fetch for the requests waiting, none during the cool-down, one retry after it (the others meanwhile not waiting), served when it is back', async () => {
    const metrics = new Metrics();
    const { idp, testApp, stop } = await startWithKeySet('auth_jwks_hang', [keyA.jwk], { JWKS_TIMEOUT_MS: '3000' }, { metrics });
    idp.hang = true;
    try {
      // No keys yet: the first request fetches, the second waits for that same fetch; it times out.
      const first = send(REST, testApp, await freshToken(keyA));
      await eventually(() => expect(idp.fetches).toBe(1));
      const second = send(GRAPHQL, testApp, await freshToken(keyA));
      expect(expectUnavailable(REST, await first, FETCH_FAILED)).toBe(10);
      expect(expectUnavailable(GRAPHQL, await second, FETCH_FAILED)).toBe(10);
      expect(idp.fetches).toBe(1);
      expect(await sample(metrics, 'jwks_key_set_fetch_failing')).toBe(1);

      // During the cool-down: 503 at once, with no fetch of its own, whatever the token's kid.
      clockOffsetMs = 4_000;
      for (const endpoint of ENDPOINTS) {
        for (const key of [keyA, unpublished]) {
          const retryAfter = expectUnavailable(endpoint, await send(endpoint, testApp, await freshToken(key)), NOT_TRIED);
          expect(retryAfter).toBeGreaterThanOrEqual(1);
          expect(retryAfter).toBeLessThanOrEqual(6);
        }
      }
      expect(idp.fetches).toBe(1);

      // After it: one request tries again and waits for its fetch; another meanwhile is answered at
      // once, while that retry still hangs.
      clockOffsetMs = 11_000;
      let retried = false;
      const retry = send(REST, testApp, await freshToken(keyA)).then((res) => {
        retried = true;
        return res;
      });
      await eventually(() => expect(idp.fetches).toBe(2));
      expectUnavailable(GRAPHQL, await send(GRAPHQL, testApp, await freshToken(keyA)), NOT_TRIED);
      expect(retried).toBe(false);
      expectUnavailable(REST, await retry, FETCH_FAILED);
      expect(idp.fetches).toBe(2);

      // Back: the first request after the cool-down fetches the set and is served, the next from it.
      idp.hang = false;
      clockOffsetMs = 22_000;
      for (const endpoint of ENDPOINTS) endpoint.expectAccepted(await send(endpoint, testApp, await freshToken(keyA)));
      expect(idp.fetches).toBe(3);
      expect(await sample(metrics, 'jwks_key_set_fetch_failing')).toBe(0);
      expect(await sample(metrics, 'jwks_key_set_fetches_total\\{outcome="failure"\\}')).toBe(2);
      expect(await sample(metrics, 'jwks_key_set_fetches_total\\{outcome="success"\\}')).toBe(1);
    } finally {
      await stop();
    }
  });

  it('keeps verifying tokens with the keys fetched before while the refresh fails, up to JWKS_STALE_IF_ERROR_MS past their ten minutes; then 503; its current keys once it is back', async () => {
    const metrics = new Metrics();
    const lines: Array<{ level: number; component?: string; msg: string; keysUsableUntil?: string; err?: { message: string } }> = [];
    const logger = createLogger(loadConfig({ NODE_ENV: 'test', JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'info' }), { write: (line: string) => lines.push(JSON.parse(line)) });
    const { idp, testApp, stop } = await startWithKeySet('auth_jwks_stale', [keyA.jwk], { JWKS_STALE_IF_ERROR_MS: '120000' }, { metrics, logger });
    const logged = () => lines.filter((line) => line.component === 'auth').map(({ level, msg }) => `${level} ${msg}`);
    try {
      REST.expectAccepted(await send(REST, testApp, await freshToken(keyA)));
      expect(idp.fetches).toBe(1);

      // Due for refresh, which fails: the keys held verify the token; the failure is remembered, so
      // the next request is verified with them at once.
      idp.status = 500;
      clockOffsetMs = 601_000;
      for (const endpoint of ENDPOINTS) endpoint.expectAccepted(await send(endpoint, testApp, await freshToken(keyA)));
      expect(idp.fetches).toBe(2);
      expect(await sample(metrics, 'jwks_key_set_fetch_failing')).toBe(1);
      expect(await sample(metrics, 'jwks_key_set_age_seconds')).toBeGreaterThanOrEqual(601);
      // A kid the keys held lack may have been published since: it cannot be looked for now (503, no fetch).
      for (const endpoint of ENDPOINTS) expectUnavailable(endpoint, await send(endpoint, testApp, await freshToken(keyB)), NOT_TRIED);
      expect(idp.fetches).toBe(2);

      // After the cool-down, still served at once from the keys held; the refresh is tried in the background.
      clockOffsetMs = 612_000;
      for (const endpoint of ENDPOINTS) endpoint.expectAccepted(await send(endpoint, testApp, await freshToken(keyA)));
      await eventually(async () => expect(await sample(metrics, 'jwks_key_set_fetches_total\\{outcome="failure"\\}')).toBe(2));
      expect(idp.fetches).toBe(3);

      // Ten minutes and JWKS_STALE_IF_ERROR_MS (2 min) after their fetch the keys held are not used:
      // a fetch is tried (the cool-down is over) and fails, then 503 at once.
      clockOffsetMs = 722_000;
      expectUnavailable(REST, await send(REST, testApp, await freshToken(keyA)), FETCH_FAILED);
      expect(idp.fetches).toBe(4);
      expectUnavailable(GRAPHQL, await send(GRAPHQL, testApp, await freshToken(keyA)), NOT_TRIED);
      expect(idp.fetches).toBe(4);

      // Back, with a new key: the first request after the cool-down fetches the set.
      idp.status = 200;
      idp.published = [keyA.jwk, keyB.jwk];
      clockOffsetMs = 733_000;
      for (const endpoint of ENDPOINTS) {
        for (const key of [keyA, keyB]) endpoint.expectAccepted(await send(endpoint, testApp, await freshToken(key)));
      }
      expect(idp.fetches).toBe(5);
      expect(await sample(metrics, 'jwks_key_set_fetch_failing')).toBe(0);
      expect(await sample(metrics, 'jwks_key_set_age_seconds')).toBeLessThan(60);
      // Logged when it starts failing (with until when the keys held serve), when they stop serving
      // and when it is back; the failures in between only at debug level.
      expect(logged()).toEqual([
        expect.stringMatching(/^40 cannot fetch the identity provider’s key set \(JWKS_URL\): tokens that need it answer 503 at once/),
        expect.stringMatching(/^40 the identity provider’s key set held is too old to be used \(JWKS_STALE_IF_ERROR_MS\)/),
        expect.stringMatching(/^30 the identity provider’s key set \(JWKS_URL\) was fetched again/),
      ]);
      expect(lines.find((line) => line.level === 40)).toMatchObject({ err: { message: 'Expected 200 OK from the JSON Web Key Set HTTP response' }, keysUsableUntil: expect.any(String) });
    } finally {
      await stop();
    }
  });
});
