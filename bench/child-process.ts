import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** A benchmark's child process: a server or the engine, its stdout read for its ready line. */
export type Child = ChildProcessByStdio<null, Readable, null>;

/** Compiled (npm run bench) or run from the TypeScript sources (node -r register-ts.cjs). */
export const EXTENSION = path.extname(__filename);
/** What a child needs to run a .ts file of this folder when the benchmarks run from the sources. */
export const PRELOAD = EXTENSION === '.ts' ? ['-r', path.join(__dirname, '../scripts/register-ts.cjs')] : [];

/** Starts a node child and resolves with the first stdout match of `pattern`; rejects if it exits first. */
export async function startChild(args: string[], env: NodeJS.ProcessEnv, pattern: RegExp, what: string): Promise<{ child: Child; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.on('error', reject);
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const found = pattern.exec(buffered);
      if (found) resolve(found);
    });
    child.on('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
  return { child, match };
}

/** The service's V8 flags (scripts/v8-flags.json), as `npm start` and `npm run db` use them; BENCH_NODE_FLAGS overrides. */
export function serviceV8Flags(): string[] {
  if (process.env.BENCH_NODE_FLAGS !== undefined) return process.env.BENCH_NODE_FLAGS.split(/\s+/).filter(Boolean);
  const root = path.resolve(__dirname, EXTENSION === '.ts' ? '..' : '../..');
  return (JSON.parse(readFileSync(path.join(root, 'scripts', 'v8-flags.json'), 'utf8')) as { service: string[] }).service;
}
