import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { ConfigError, type AuthConfig } from '../config';

/** Algorithm a configured PEM key implies; the token's own `alg` header never chooses it. */
export type PemKeyAlgorithm = 'RS256' | 'ES256' | 'EdDSA';

/** What an identity provider's key set may sign with: asymmetric only, so no HS* confusion. */
export const JWKS_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'] as const;

export const MIN_SECRET_BYTES = 32;

type KeySourceVariable = 'JWT_SECRET' | 'JWT_PUBLIC_KEY' | 'JWKS_URL';

/** The verification key sources set in `auth`, by the name of their environment variable. */
export function configuredKeySources(auth: AuthConfig): KeySourceVariable[] {
  const sources: KeySourceVariable[] = [];
  if (auth.jwtSecret) sources.push('JWT_SECRET');
  if (auth.jwtPublicKey) sources.push('JWT_PUBLIC_KEY');
  if (auth.jwksUrl) sources.push('JWKS_URL');
  return sources;
}

export function missingKeySourceError(context: string): ConfigError {
  return new ConfigError(
    'JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL',
    `must be set ${context}: JWT_SECRET (HS256, at least ${MIN_SECRET_BYTES} bytes), ` +
      'JWT_PUBLIC_KEY (PEM public key: RSA, EC P-256 or Ed25519) or JWKS_URL (key set of an identity provider)',
  );
}

/** HS256 key bytes: the secret's UTF-8 encoding, checked for length. */
export function secretKeyBytes(secret: string): Uint8Array {
  const bytes = new TextEncoder().encode(secret);
  if (bytes.byteLength < MIN_SECRET_BYTES) {
    throw new ConfigError('JWT_SECRET', `must be at least ${MIN_SECRET_BYTES} bytes long for HS256`);
  }
  return bytes;
}

/** Reads a PEM public key (SPKI) and names the algorithm its type implies. */
export function readPublicKey(pem: string): { key: KeyObject; algorithm: PemKeyAlgorithm } {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch {
    throw new ConfigError('JWT_PUBLIC_KEY', 'is not a readable PEM public key ("-----BEGIN PUBLIC KEY-----", SPKI)');
  }
  return { key, algorithm: algorithmForKey(key, 'JWT_PUBLIC_KEY') };
}

/** Reads a PEM private key (PKCS#8) and names the algorithm its type implies. */
export function readPrivateKey(pem: string): { key: KeyObject; algorithm: PemKeyAlgorithm } {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new ConfigError('JWT_PRIVATE_KEY', 'is not a readable unencrypted PEM private key ("-----BEGIN PRIVATE KEY-----", PKCS#8)');
  }
  return { key, algorithm: algorithmForKey(key, 'JWT_PRIVATE_KEY') };
}

function algorithmForKey(key: KeyObject, variable: string): PemKeyAlgorithm {
  const type = key.asymmetricKeyType;
  if (type === 'rsa') {
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < 2048) throw new ConfigError(variable, `is a ${bits}-bit RSA key; RS256 needs at least 2048 bits`);
    return 'RS256';
  }
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    throw new ConfigError(variable, `is an EC key on curve ${curve ?? 'unknown'}; only P-256 (ES256) is supported`);
  }
  if (type === 'ed25519') return 'EdDSA';
  throw new ConfigError(variable, `is a ${type ?? 'unknown'} key; expected RSA (RS256), EC P-256 (ES256) or Ed25519 (EdDSA)`);
}
