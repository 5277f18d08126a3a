import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import request from 'supertest';
import {
  authConfig,
  challengeParams,
  createAuthHarness,
  secretBytes,
  signToken,
  TIMELINE_PATH,
  validClaims,
} from '../helpers/auth-harness';

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

const tokenFrom = (key: SigningKey, kid: string | undefined = key.kid) =>
  signToken(validClaims({ sub: `signed-by-${key.kid}` }), key.privateKey, { alg: key.alg, ...(kid ? { kid } : {}) });

/** A stand-in identity provider: serves whatever key set the test publishes and counts fetches. */
class KeySetServer {
  published: JWK[] = [];
  status = 200;
  fetches = 0;
  private server: Server = createServer((req, res) => {
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
    return new Promise((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('bearer token authentication with a remote key set (JWKS_URL)', () => {
  const idp = new KeySetServer();
  let jwksUrl: string;
  let keyA: SigningKey;
  let keyB: SigningKey;
  let unpublished: SigningKey;

  beforeAll(async () => {
    jwksUrl = await idp.start();
    [keyA, keyB, unpublished] = await Promise.all([
      signingKey('key-a', 'ES256'),
      signingKey('key-b', 'RS256'),
      signingKey('key-x', 'ES256'),
    ]);
  });
  afterAll(() => idp.stop());
  beforeEach(() => {
    idp.published = [keyA.jwk];
    idp.status = 200;
    idp.fetches = 0;
  });

  const get = (app: ReturnType<typeof createAuthHarness>, token: string) =>
    request(app).get(TIMELINE_PATH).set('Authorization', `Bearer ${token}`);

  it('accepts a token signed with a published key, fetching the set once', async () => {
    const app = createAuthHarness(authConfig({ jwksUrl }));
    for (let i = 0; i < 3; i += 1) {
      const res = await get(app, await tokenFrom(keyA));
      expect(res.status).toBe(200);
      expect(res.body.subject).toBe('signed-by-key-a');
    }
    expect(idp.fetches).toBe(1);
  });

  it('follows a key rotation by kid once the cooldown has passed', async () => {
    // A 1 s cooldown instead of the 30 s default keeps the test short while still showing it work.
    const app = createAuthHarness(authConfig({ jwksUrl }), { jwks: { cooldownDurationMs: 1000 } });
    expect((await get(app, await tokenFrom(keyA))).status).toBe(200);
    expect(idp.fetches).toBe(1);

    idp.published = [keyA.jwk, keyB.jwk];
    // Inside the cooldown an unknown kid does not reach the identity provider: still unknown.
    const early = await get(app, await tokenFrom(keyB));
    expect(early.status).toBe(401);
    expect(idp.fetches).toBe(1);

    await sleep(1100);
    const rotated = await get(app, await tokenFrom(keyB));
    expect(rotated.status).toBe(200);
    expect(rotated.body.subject).toBe('signed-by-key-b');
    expect(idp.fetches).toBe(2);
    expect((await get(app, await tokenFrom(keyA))).status).toBe(200);
    expect(idp.fetches).toBe(2);
  });

  it('rejects a token whose kid is not in the set, even after refetching it', async () => {
    const app = createAuthHarness(authConfig({ jwksUrl }), { jwks: { cooldownDurationMs: 0 } });
    const res = await get(app, await tokenFrom(unpublished));
    expect(res.status).toBe(401);
    const params = challengeParams(res.headers['www-authenticate']);
    expect(params.error).toBe('invalid_token');
    expect(params.error_description).toBe('no key of the identity provider matches the token kid');
    expect(idp.fetches).toBe(2);
  });

  it('rejects a token that reuses a published kid but was signed with another key', async () => {
    const app = createAuthHarness(authConfig({ jwksUrl }));
    const res = await get(app, await tokenFrom(unpublished, keyA.kid));
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers['www-authenticate']).error_description).toBe('signature verification failed');
  });

  it('rejects a token without kid when several keys could match', async () => {
    idp.published = [keyA.jwk, { ...unpublished.jwk }];
    const app = createAuthHarness(authConfig({ jwksUrl }));
    const res = await get(app, await tokenFrom(keyA, ''));
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers['www-authenticate']).error_description).toMatch(/several keys/);
  });

  it('rejects an HS256 token without fetching the key set', async () => {
    const app = createAuthHarness(authConfig({ jwksUrl }));
    const forged = await signToken(validClaims(), secretBytes(), { alg: 'HS256', kid: keyA.kid });
    const res = await get(app, forged);
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers['www-authenticate']).error_description).toBe(
      'the token algorithm is not accepted; expected RS256, RS384, RS512, PS256, ES256, ES384, EdDSA',
    );
    expect(idp.fetches).toBe(0);
  });

  it('answers 503, not 401, when the identity provider fails', async () => {
    idp.status = 500;
    const app = createAuthHarness(authConfig({ jwksUrl }));
    const res = await get(app, await tokenFrom(keyA));
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('answers 503 when the identity provider cannot be reached', async () => {
    const gone = new KeySetServer();
    const goneUrl = await gone.start();
    await gone.stop();
    const app = createAuthHarness(authConfig({ jwksUrl: goneUrl }));
    const res = await get(app, await tokenFrom(keyA));
    expect(res.status).toBe(503);
  });
});
