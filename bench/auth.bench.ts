/**
 * Cost of `TokenVerifier.authenticate` (header parsing, signature, claims, principal) for HS256 and
 * ES256. Every verification uses a distinct token (distinct `jti`), as real traffic does; the
 * verifier caches nothing per token, so the same token repeated would cost the same.
 *
 * Run alone: `npx tsc -p tsconfig.build.json && node dist/bench/auth.bench.js`.
 */
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { importPKCS8, SignJWT, type CryptoKey } from 'jose';
import { ALL_SCOPES } from '../src/auth/scopes';
import { createTokenVerifier, type TokenVerifier } from '../src/auth/token-verifier';
import { loadConfig, type AuthConfig } from '../src/config';

export interface AuthBenchOptions {
  /** Tokens verified per repetition. */
  tokens?: number;
  repetitions?: number;
  /** Verifications in flight at once for the concurrent throughput figure. */
  concurrency?: number;
}

export interface AuthBenchResult {
  algorithm: 'HS256' | 'ES256';
  tokens: number;
  repetitions: number;
  /** Median over the repetitions of (elapsed time / tokens), verifying one token at a time. */
  medianMicrosPerVerify: number;
  /** 1 / median: verifications per second of one sequential caller. */
  sequentialPerSecond: number;
  /** Median verifications per second with `concurrency` verifications in flight. */
  concurrentPerSecond: number;
  concurrency: number;
}

export async function runAuthBench(options: AuthBenchOptions = {}): Promise<AuthBenchResult[]> {
  const tokens = options.tokens ?? 10_000;
  const repetitions = options.repetitions ?? 5;
  const concurrency = options.concurrency ?? 64;
  const results: AuthBenchResult[] = [];

  const secret = randomBytes(32).toString('base64url');
  results.push(
    await benchAlgorithm('HS256', loadConfig({ JWT_SECRET: secret }).auth, new TextEncoder().encode(secret), {
      tokens,
      repetitions,
      concurrency,
    }),
  );

  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicKey = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const privateKey = await importPKCS8(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'ES256');
  results.push(
    await benchAlgorithm('ES256', loadConfig({ JWT_PUBLIC_KEY: publicKey }).auth, privateKey, {
      tokens,
      repetitions,
      concurrency,
    }),
  );
  return results;
}

async function benchAlgorithm(
  algorithm: AuthBenchResult['algorithm'],
  auth: AuthConfig,
  signingKey: Uint8Array | CryptoKey,
  { tokens, repetitions, concurrency }: Required<AuthBenchOptions>,
): Promise<AuthBenchResult> {
  const verifier = createTokenVerifier(auth);
  const headers = await signHeaders(algorithm, signingKey, tokens);

  await verifySequentially(verifier, headers.slice(0, Math.min(2000, tokens))); // warm-up (JIT, key import)
  const perVerify: number[] = [];
  const perSecondConcurrent: number[] = [];
  for (let run = 0; run < repetitions; run += 1) {
    perVerify.push((await verifySequentially(verifier, headers)) / tokens);
    perSecondConcurrent.push(tokens / ((await verifyConcurrently(verifier, headers, concurrency)) / 1e6));
  }
  const medianMicrosPerVerify = median(perVerify);
  return {
    algorithm,
    tokens,
    repetitions,
    medianMicrosPerVerify,
    sequentialPerSecond: 1e6 / medianMicrosPerVerify,
    concurrentPerSecond: median(perSecondConcurrent),
    concurrency,
  };
}

async function signHeaders(alg: string, key: Uint8Array | CryptoKey, count: number): Promise<string[]> {
  const now = Math.floor(Date.now() / 1000);
  const scope = ALL_SCOPES.join(' ');
  const headers: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const token = await new SignJWT({ scope })
      .setProtectedHeader({ alg, typ: 'JWT' })
      .setSubject(`bench-${i % 50}`)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(key);
    headers.push(`Bearer ${token}`);
  }
  return headers;
}

/** Elapsed microseconds to authenticate every header, one after another. */
async function verifySequentially(verifier: TokenVerifier, headers: string[]): Promise<number> {
  const started = process.hrtime.bigint();
  for (const header of headers) {
    if (!(await verifier.authenticate(header))) throw new Error('benchmark token was not accepted');
  }
  return Number(process.hrtime.bigint() - started) / 1000;
}

/** Elapsed microseconds with `concurrency` workers pulling from the same list. */
async function verifyConcurrently(verifier: TokenVerifier, headers: string[], concurrency: number): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < headers.length) {
      const header = headers[next];
      next += 1;
      if (!(await verifier.authenticate(header))) throw new Error('benchmark token was not accepted');
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return Number(process.hrtime.bigint() - started) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function formatAuthBench(results: AuthBenchResult[]): string {
  const rows = results.map(
    (r) =>
      `| ${r.algorithm} | ${r.tokens.toLocaleString('en-US')} × ${r.repetitions} | ${r.medianMicrosPerVerify.toFixed(1)} µs | ` +
      `${Math.round(r.sequentialPerSecond).toLocaleString('en-US')}/s | ${Math.round(r.concurrentPerSecond).toLocaleString('en-US')}/s (${r.concurrency} in flight) |`,
  );
  return [
    '| Algorithm | Tokens × runs | Median per verify | Throughput, sequential | Throughput, concurrent |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

if (require.main === module) {
  runAuthBench().then(
    (results) => console.log(`${formatAuthBench(results)}\n\nNode ${process.version}`),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
