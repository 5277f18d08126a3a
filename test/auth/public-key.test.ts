import { generateKeyPairSync } from 'node:crypto';
import { importPKCS8, type JWTPayload } from 'jose';
import { mintToken } from '../../src/auth/token-issuer';
import { createTokenVerifier } from '../../src/auth/token-verifier';
import { ConfigError, loadConfig } from '../../src/config';
import {
  ENDPOINTS,
  expectRejected,
  invalidToken,
  nowSeconds,
  secretBytes,
  signToken,
  unsignedToken,
  withPayload,
  type Rejection,
} from '../helpers/auth-requests';
import { startTestApp, type TestApp } from '../helpers/test-app';

interface KeyPair {
  publicKey: string;
  privateKey: string;
}
type KeyKind = { label: string; alg: 'RS256' | 'ES256' | 'EdDSA'; generate: () => KeyPair };

const pems = (pair: ReturnType<typeof generateKeyPairSync>): KeyPair => ({
  publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
});

const KINDS: KeyKind[] = [
  { label: 'RSA', alg: 'RS256', generate: () => pems(generateKeyPairSync('rsa', { modulusLength: 2048 })) },
  { label: 'EC P-256', alg: 'ES256', generate: () => pems(generateKeyPairSync('ec', { namedCurve: 'P-256' })) },
  { label: 'Ed25519', alg: 'EdDSA', generate: () => pems(generateKeyPairSync('ed25519')) },
];

function claims(overrides: JWTPayload = {}): JWTPayload {
  const now = nowSeconds();
  return { sub: 'ops', scope: 'timeline:read', iat: now, exp: now + 3600, ...overrides };
}

describe.each(KINDS)('bearer tokens with an $label public key (JWT_PUBLIC_KEY)', ({ alg, generate }) => {
  const own = generate();
  const stranger = generate();
  let testApp: TestApp;
  beforeAll(async () => {
    // JWT_PRIVATE_KEY only lets testApp.token() mint; the service verifies with the public key alone.
    testApp = await startTestApp(`auth_public_key_${alg}`, { JWT_SECRET: '', JWT_PUBLIC_KEY: own.publicKey, JWT_PRIVATE_KEY: own.privateKey });
  });
  afterAll(() => testApp.close());

  const signedBy = async (pair: KeyPair, overrides: JWTPayload = {}) => signToken(claims(overrides), await importPKCS8(pair.privateKey, alg), { alg });

  const REJECTIONS: Array<{ name: string; token: () => Promise<string>; expected: Rejection }> = [
    {
      name: 'an HS256 token forged with the public key as the secret',
      token: () => signToken(claims(), secretBytes(own.publicKey), { alg: 'HS256' }),
      expected: invalidToken(`the token algorithm is not accepted; expected ${alg}`),
    },
    { name: 'alg: none', token: async () => unsignedToken(claims()), expected: invalidToken(`the token algorithm is not accepted; expected ${alg}`) },
    { name: 'a token signed with another key of the same type', token: () => signedBy(stranger), expected: invalidToken('signature verification failed') },
    {
      name: 'a tampered payload',
      token: async () => withPayload(await signedBy(own), claims({ sub: 'mallory', scope: 'timeline:read flights:write' })),
      expected: invalidToken('signature verification failed'),
    },
    { name: 'an expired token', token: () => signedBy(own, { exp: nowSeconds() - 120 }), expected: invalidToken('the token has expired (exp)') },
  ];

  describe.each(ENDPOINTS)('on $name', (endpoint) => {
    it(`accepts a token minted with the matching private key (${alg}, chosen from the key type)`, async () => {
      const token = await testApp.token(['timeline:read'], 'ops');
      expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).alg).toBe(alg);
      endpoint.expectAccepted(await endpoint.send(testApp.app, { authorization: `Bearer ${token}` }));
    });

    it.each(REJECTIONS)('refuses $name', async ({ token, expected }) => {
      const forged = await token();
      expectRejected(endpoint, await endpoint.send(testApp.app, { authorization: `Bearer ${forged}` }), expected, forged);
    });
  });
});

/** The checks `createApp` meets at start-up: `loadConfig` reads the environment, the verifier imports the key. */
describe('key configuration', () => {
  const env = (overrides: Record<string, string>) => ({ NODE_ENV: 'production', PUBLIC_HOST: 'broker.example.test', ...overrides });
  const verifierFor = (overrides: Record<string, string>) => () => createTokenVerifier(loadConfig(env(overrides)).auth);

  it('refuses an unreadable public key', () => {
    const broken = '-----BEGIN PUBLIC KEY-----\nnot base64 at all\n-----END PUBLIC KEY-----\n';
    expect(verifierFor({ JWT_PUBLIC_KEY: broken })).toThrow(ConfigError);
    expect(verifierFor({ JWT_PUBLIC_KEY: broken })).toThrow(/JWT_PUBLIC_KEY is not a readable PEM public key/);
  });

  it('refuses an EC key on a curve other than P-256', () => {
    const { publicKey } = pems(generateKeyPairSync('ec', { namedCurve: 'P-384' }));
    expect(verifierFor({ JWT_PUBLIC_KEY: publicKey })).toThrow(/JWT_PUBLIC_KEY is an EC key on curve secp384r1/);
  });

  it('refuses an RSA key shorter than 2048 bits', () => {
    const { publicKey } = pems(generateKeyPairSync('rsa', { modulusLength: 1024 }));
    expect(verifierFor({ JWT_PUBLIC_KEY: publicKey })).toThrow(/1024-bit RSA key/);
  });

  it('refuses two key sources at once', () => {
    const { publicKey } = KINDS[1].generate();
    expect(() => loadConfig(env({ JWT_SECRET: 'x'.repeat(32), JWT_PUBLIC_KEY: publicKey }))).toThrow(
      /JWT_PUBLIC_KEY cannot be set together with JWT_SECRET/,
    );
  });

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => loadConfig(env({ JWT_SECRET: 'short' }))).toThrow(/JWT_SECRET must be at least 32 bytes/);
  });

  it('refuses to mint with a private key that does not belong to the public key', async () => {
    const own = KINDS[1].generate();
    const other = KINDS[1].generate();
    const { auth } = loadConfig(env({ JWT_PUBLIC_KEY: own.publicKey, JWT_PRIVATE_KEY: other.privateKey }));
    await expect(mintToken(auth, { sub: 'ops', scope: [], ttlSeconds: 60 })).rejects.toThrow(/JWT_PRIVATE_KEY does not belong to JWT_PUBLIC_KEY/);
  });
});
