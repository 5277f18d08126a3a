import { spawn, type ChildProcessWithoutNullStreams, type SpawnOptionsWithoutStdio } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

export const ROOT = path.join(__dirname, '../..');

/** A child process with its combined output and its exit. */
export interface Started {
  child: ChildProcessWithoutNullStreams;
  output(): string;
  exited: Promise<number | null>;
}

const running = new Set<ChildProcessWithoutNullStreams>();

/**
 * Spawns a process whose output is collected; killAll() ends it, and every process it started, if
 * the test does not. It leads a process group of its own: `npm start` runs the service two
 * processes down, which a kill of npm alone would leave running.
 */
export function startProcess(command: string, args: string[], options: SpawnOptionsWithoutStdio = {}): Started {
  const child = spawn(command, args, { cwd: ROOT, detached: true, ...options });
  running.add(child);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return { child, output: () => output, exited };
}

/** Runs a TypeScript entry point of this repository directly (compiled on load, as jest does). */
export function startTypeScript(entry: string, args: string[] = [], env: Record<string, string> = {}): Started {
  return startProcess(process.execPath, ['-r', './scripts/register-ts.cjs', entry, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
}

/** The embedded engine in a process of its own (what `npm run db` runs: the package's command), listening on `port`. */
export async function startEngineProcess(port: number): Promise<Started & { uri: string }> {
  const engine = startProcess(process.execPath, [require.resolve('@broker/embedded-mongo/cli'), '--port', String(port)], { env: { PATH: process.env.PATH ?? '' } });
  await waitFor(() => /mongodb:\/\/\S+/.test(engine.output()) || engine.child.exitCode !== null, 20_000);
  const uri = /mongodb:\/\/[^\s/]+/.exec(engine.output())?.[0];
  if (!uri) throw new Error(`the engine did not start: ${engine.output()}`);
  return { ...engine, uri };
}

/**
 * Ends every process a test started and did not wait for, with the processes they started (their
 * process group). SIGCONT first: a stopped one ignores SIGKILL until resumed on some systems.
 */
export async function killAll(): Promise<void> {
  const exits = [...running].map((child) => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    for (const signal of ['SIGCONT', 'SIGKILL'] as const) {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // The group is gone already, or the child never started: the child's own kill below.
      }
      child.kill(signal);
    }
    return exited;
  });
  await Promise.all(exits);
}

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls `condition` every 100 ms; throws after `timeoutMs` (a liveness bound, not a measurement). */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}
