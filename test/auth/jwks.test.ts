import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import {
  ENDPOINTS,
  expectRejected,
  invalidToken,
  nowSeconds,
  secretBytes,
  signToken,
  unsignedToken,
  type Endpoint,
  type Rejection,
} from '../helpers/auth-requests';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/test-app';

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

/** A stand-in identity provider on 127.0.0.1: serves whatever key set the test publishes and counts fetches. */
class KeySetServer {
  published: JWK[] = [];
  status = 200;
  fetches = 0;
  private readonly server: Server = createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    this.fetches += 1;
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

function startJwksApp(name: string, jwksUrl: string): Promise<TestApp> {
  return startTestApp(name, { JWT_SECRET: '', JWKS_URL: jwksUrl, JWT_PRIVATE_KEY: MINTING_KEY });
}

/** The real app verifying against a fresh identity provider that publishes `keys`. */
async function startWithKeySet(name: string, keys: JWK[]): Promise<{ idp: KeySetServer; testApp: TestApp; stop(): Promise<void> }> {
  const idp = new KeySetServer();
  idp.published = keys;
  const jwksUrl = await idp.start();
  const testApp = await startJwksApp(name, jwksUrl).catch(async (error: unknown) => {
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
