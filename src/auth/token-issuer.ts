import { createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { importPKCS8, SignJWT, type CryptoKey } from 'jose';
import { ConfigError, type AuthConfig } from '../config';
import { readPrivateKey, secretKeyBytes } from './keys';

/** What a minted token says about its holder. */
export interface TokenClaims {
  /** `sub`: who the token stands for. */
  sub: string;
  /** Granted scopes, written as one space-separated `scope` claim. */
  scope: string[];
  /** Lifetime from now, in seconds. */
  ttlSeconds: number;
  /** `jti`; a random UUID when omitted. */
  jti?: string;
}

/**
 * Signs a token the service's own verifier accepts: HS256 with `jwtSecret` when set, otherwise the
 * `jwtPrivateKey` with the algorithm its key type implies. Adds `iss`/`aud` when configured.
 * For `npm run token`, development tokens and tests; the service itself never mints tokens.
 */
export async function mintToken(auth: AuthConfig, claims: TokenClaims): Promise<string> {
  if (claims.sub.trim() === '') throw new TypeError('sub must be a non-empty string');
  if (!Number.isInteger(claims.ttlSeconds) || claims.ttlSeconds <= 0) {
    throw new TypeError('ttlSeconds must be a positive whole number');
  }
  const { alg, key } = await signingKey(auth);
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ scope: claims.scope.join(' ') })
    .setProtectedHeader({ alg, typ: 'JWT' })
    .setSubject(claims.sub)
    .setJti(claims.jti ?? randomUUID())
    .setIssuedAt(now)
    .setExpirationTime(now + claims.ttlSeconds);
  if (auth.issuer) jwt.setIssuer(auth.issuer);
  if (auth.audience) jwt.setAudience(auth.audience);
  return jwt.sign(key);
}

async function signingKey(auth: AuthConfig): Promise<{ alg: string; key: Uint8Array | CryptoKey }> {
  if (auth.jwtSecret) return { alg: 'HS256', key: secretKeyBytes(auth.jwtSecret) };
  if (auth.jwtPrivateKey) {
    const { key, algorithm } = readPrivateKey(auth.jwtPrivateKey);
    if (auth.jwtPublicKey && !samePublicKey(createPublicKey(key), auth.jwtPublicKey)) {
      throw new ConfigError('JWT_PRIVATE_KEY', 'does not belong to JWT_PUBLIC_KEY: tokens it signs would be rejected');
    }
    return { alg: algorithm, key: await importPKCS8(auth.jwtPrivateKey, algorithm) };
  }
  throw new ConfigError(
    'JWT_SECRET or JWT_PRIVATE_KEY',
    'must be set to mint tokens (the secret the service verifies with, or the PEM PKCS#8 private key matching JWT_PUBLIC_KEY)',
  );
}

function samePublicKey(derived: KeyObject, configuredPem: string): boolean {
  try {
    const configured = createPublicKey(configuredPem).export({ type: 'spki', format: 'der' });
    return configured.equals(derived.export({ type: 'spki', format: 'der' }));
  } catch {
    return false;
  }
}
