import { generateKeyPairSync } from 'node:crypto';
import { importPKCS8 } from 'jose';
import request from 'supertest';
import { mintToken } from '../../src/auth/token-issuer';
import { createTokenVerifier } from '../../src/auth/token-verifier';
import { ConfigError } from '../../src/config';
import {
  authConfig,
  challengeParams,
  createAuthHarness,
  signToken,
  TIMELINE_PATH,
  unsignedToken,
  validClaims,
} from '../helpers/auth-harness';

type KeyKind = { label: string; alg: string; generate: () => { publicKey: string; privateKey: string } };

const pems = (pair: ReturnType<typeof generateKeyPairSync>) => ({
  publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
});

const KINDS: KeyKind[] = [
  { label: 'RSA', alg: 'RS256', generate: () => pems(generateKeyPairSync('rsa', { modulusLength: 2048 })) },
  { label: 'EC P-256', alg: 'ES256', generate: () => pems(generateKeyPairSync('ec', { namedCurve: 'P-256' })) },
  { label: 'Ed25519', alg: 'EdDSA', generate: () => pems(generateKeyPairSync('ed25519')) },
];

describe.each(KINDS)('bearer token authentication with an $label public key', ({ alg, generate }) => {
  const own = generate();
  const stranger = generate();
  const app = createAuthHarness(authConfig({ jwtPublicKey: own.publicKey }));
  const get = (token: string) => request(app).get(TIMELINE_PATH).set('Authorization', `Bearer ${token}`);

  it(`accepts a token signed with the matching private key (${alg}, detected from the key type)`, async () => {
    const token = await mintToken(authConfig({ jwtPublicKey: own.publicKey, jwtPrivateKey: own.privateKey }), {
      sub: 'ops',
      scope: ['timeline:read'],
      ttlSeconds: 600,
    });
    const res = await get(token);
    expect(res.status).toBe(200);
    expect(res.body.subject).toBe('ops');
  });

  it('rejects an HS256 token forged with the public key as the secret', async () => {
    const forged = await signToken(validClaims(), new TextEncoder().encode(own.publicKey), { alg: 'HS256' });
    const res = await get(forged);
    expect(res.status).toBe(401);
    const params = challengeParams(res.headers['www-authenticate']);
    expect(params.error).toBe('invalid_token');
    expect(params.error_description).toBe(`the token algorithm is not accepted; expected ${alg}`);
  });

  it('rejects alg: none', async () => {
    const res = await get(unsignedToken(validClaims()));
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers['www-authenticate']).error_description).toMatch(/algorithm is not accepted/);
  });

  it('rejects a token signed with another key of the same type', async () => {
    const token = await signToken(validClaims(), await importPKCS8(stranger.privateKey, alg), { alg });
    const res = await get(token);
    expect(res.status).toBe(401);
    expect(challengeParams(res.headers['www-authenticate']).error_description).toBe('signature verification failed');
  });
});

describe('public key configuration', () => {
  it('refuses an unreadable key at creation', () => {
    const broken = '-----BEGIN PUBLIC KEY-----\nnot base64 at all\n-----END PUBLIC KEY-----\n';
    expect(() => createTokenVerifier(authConfig({ jwtPublicKey: broken }))).toThrow(ConfigError);
    expect(() => createTokenVerifier(authConfig({ jwtPublicKey: broken }))).toThrow(/JWT_PUBLIC_KEY/);
  });

  it('refuses an EC key on a curve other than P-256', () => {
    const { publicKey } = pems(generateKeyPairSync('ec', { namedCurve: 'P-384' }));
    expect(() => createTokenVerifier(authConfig({ jwtPublicKey: publicKey }))).toThrow(/JWT_PUBLIC_KEY is an EC key on curve secp384r1/);
  });

  it('refuses an RSA key shorter than 2048 bits', () => {
    const { publicKey } = pems(generateKeyPairSync('rsa', { modulusLength: 1024 }));
    expect(() => createTokenVerifier(authConfig({ jwtPublicKey: publicKey }))).toThrow(/1024-bit RSA key/);
  });

  it('refuses two key sources at once', () => {
    const { publicKey } = KINDS[1].generate();
    expect(() =>
      createTokenVerifier(authConfig({ jwtPublicKey: publicKey, jwtSecret: 'x'.repeat(32) })),
    ).toThrow(/cannot be set together/);
  });

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => createTokenVerifier(authConfig({ jwtSecret: 'short' }))).toThrow(/JWT_SECRET must be at least 32 bytes/);
  });

  it('refuses to mint with a private key that does not match the public key', async () => {
    const own = KINDS[1].generate();
    const other = KINDS[1].generate();
    await expect(
      mintToken(authConfig({ jwtPublicKey: own.publicKey, jwtPrivateKey: other.privateKey }), {
        sub: 'ops',
        scope: [],
        ttlSeconds: 60,
      }),
    ).rejects.toThrow(/JWT_PRIVATE_KEY does not belong to JWT_PUBLIC_KEY/);
  });
});
