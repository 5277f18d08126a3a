import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { freePort, killAll, startProcess, startTypeScript, waitFor, type Started } from './child-processes';

jest.setTimeout(180_000);

/** A hand-driven HTTP/1.1 connection: the test decides when each byte is sent. */
class RawConnection {
  private received = Buffer.alloc(0);
  readonly closed: Promise<void>;
  private readonly socket: net.Socket;

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('data', (chunk) => (this.received = Buffer.concat([this.received, chunk])));
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => this.socket.on('close', () => resolve()));
  }

  send(text: string): void {
    this.socket.write(text);
  }

  /** Waits for the next whole response (Content-Length bodies only) and consumes it. */
  async response(): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    let parsed: { status: number; headers: Record<string, string>; body: string; length: number } | undefined;
    await waitFor(() => (parsed = this.parse()) !== undefined, 30_000);
    this.received = this.received.subarray(parsed!.length);
    return parsed!;
  }

  private parse() {
    const end = this.received.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = this.received.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = end + 4 + Number(headers['content-length'] ?? 0);
    if (this.received.length < length) return undefined;
    return { status: Number(statusLine.split(' ')[1]), headers, body: this.received.subarray(end + 4, length).toString('utf8'), length };
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** The pids of a process's children (Linux `ps`). */
async function childPids(pid: number): Promise<number[]> {
  const ps = startProcess('ps', ['-o', 'pid=', '--ppid', String(pid)]);
  await ps.exited;
  return ps.output().split('\n').filter((line) => line.trim()).map(Number);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the service process', () => {
  afterAll(() => killAll());

  it('under `npm start`: starts on the embedded engine, limits stalled clients, and on SIGTERM to npm drains in-flight requests with Connection: close, exits 0 and leaves no process', async () => {
    const port = await freePort();
    const npm: Started = startProcess('npm', ['start'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        PORT: String(port),
        HOST: '127.0.0.1',
        NODE_ENV: 'development',
        HTTP_HEADERS_TIMEOUT_MS: '1000',
        // Long enough for the half-sent request below to outlive a slow machine's signal handling.
        HTTP_REQUEST_TIMEOUT_MS: '20000',
        SHUTDOWN_TIMEOUT_MS: '30000',
      },
    });
    // The first run after a change compiles the TypeScript into dist/ first.
    // The log line and the token are two writes (the logger's and a plain one): either may reach
    // this pipe first, or in a later chunk.
    await waitFor(() => (/listening on/.test(npm.output()) && /Bearer eyJ/.test(npm.output())) || npm.child.exitCode !== null, 150_000).catch((error: Error) => {
      throw new Error(`${error.message}; the output so far:\n${npm.output()}`);
    });
    expect(npm.output()).toMatch(/EMBEDDED development engine.*not a production database/);
    expect(npm.output()).toMatch(/demo data loaded/);
    const token = /Bearer (eyJ[\w-]+\.[\w-]+\.[\w-]+)/.exec(npm.output())![1];
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    // `exec` in the npm script: npm's only child is the service's node process itself.
    const [service, ...others] = await childPids(npm.child.pid!);
    expect(others).toEqual([]);
    // The service runs with its V8 flags (scripts/v8-flags.json): in that process, or in the one
    // child it started with them.
    const serviceProcesses = [service, ...(await childPids(service))];
    const commandLines = serviceProcesses.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'));
    const { service: flags } = JSON.parse(readFileSync(path.join(__dirname, '../../scripts/v8-flags.json'), 'utf8')) as { service: string[] };
    expect(flags).toContain('--max-semi-space-size=64');
    expect(commandLines.filter((args) => flags.every((flag) => args.includes(flag)))).toHaveLength(1);

    // A client that never finishes its headers, or its body, loses the connection (Node: 408).
    const stalledHeaders = new RawConnection(port);
    stalledHeaders.send('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const stalledBody = new RawConnection(port);
    stalledBody.send('POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":');
    await Promise.all([stalledHeaders.closed, stalledBody.closed]);

    // An idle keep-alive connection, and one whose request is half sent when SIGTERM arrives.
    const idle = new RawConnection(port);
    idle.send('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await idle.response()).headers.connection).toBe('keep-alive');
    const body = JSON.stringify({ query: '{ resources { id } }' });
    const inFlight = new RawConnection(port);
    // `Expect: 100-continue`: the interim answer proves the server holds the request before SIGTERM.
    inFlight.send(
      `POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect((await inFlight.response()).status).toBe(100);
    inFlight.send(body.slice(0, 10));

    npm.child.kill('SIGTERM');
    await waitFor(() => /shutting down/.test(npm.output()), 30_000);
    inFlight.send(body.slice(10));
    const answer = await inFlight.response();
    expect(answer.status).toBe(200);
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body).data.resources.length).toBeGreaterThan(0);
    await inFlight.closed;

    // The idle connection is left to its announced keep-alive time-out (closing it at once could
    // race a request the client sends on it); after the grace no new connection is taken.
    await idle.closed;
    await waitFor(() => /no longer accepting connections/.test(npm.output()), 30_000);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();

    expect(await npm.exited).toBe(0);
    expect(npm.output()).toMatch(/"msg":"stopped"/);
    expect(isAlive(service)).toBe(false);
    // Structured JSON request logs carry the request id the response announced.
    const requestId = answer.headers['x-request-id'];
    const logged = npm.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    expect(logged.find((entry) => entry.req?.url === '/graphql' && entry.res?.statusCode === 200)).toMatchObject({ req: { id: requestId } });
  });

  // Each refusal runs the real entry point (3 to 4 s apiece): one per code path that refuses.
  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ NODE_ENV: 'production', MONGODB_URI: 'mongodb://127.0.0.1:9/broker' }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production', JWT_SECRET: 'a-production-secret-of-at-least-32-bytes' }, 'MONGODB_URI'],
  ])('refuses to start with bad configuration %j, naming %s', async (env, variable) => {
    const service = startTypeScript('src/main.ts', [], env);
    expect(await service.exited).toBe(1);
    expect(service.output()).toContain(variable);
    expect(service.output()).not.toMatch(/\n\s+at /);
  });

  it.each([
    [{ TIMEZONE: 'Europe/Atlantis' }, 'TIMEZONE'],
    [{ MONGODB_URI: 'postgres://db/broker' }, 'MONGODB_URI'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ CORS_ORIGINS: 'https://ops.example.com/calendar' }, 'CORS_ORIGINS'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ DB_OPERATION_TIMEOUT_MS: '5s' }, 'DB_OPERATION_TIMEOUT_MS'],
    [{ READINESS_TIMEOUT_MS: '0' }, 'READINESS_TIMEOUT_MS'],
    [{ SHUTDOWN_TIMEOUT_MS: '2000', SHUTDOWN_GRACE_MS: '3000' }, 'SHUTDOWN_GRACE_MS'],
    [{ DB_HEARTBEAT_FREQUENCY_MS: '50' }, 'DB_HEARTBEAT_FREQUENCY_MS'],
    [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: 'forever' }, 'HTTP_KEEP_ALIVE_TIMEOUT_MS'],
  ])('the configuration %j is refused naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
  });

  it('keeps accepting after SIGTERM for 5 s in production and 1 s elsewhere, never past SHUTDOWN_TIMEOUT_MS', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).shutdownGraceMs).toBe(5000);
    expect(loadConfig({ NODE_ENV: 'development' }).shutdownGraceMs).toBe(1000);
    expect(loadConfig({ NODE_ENV: 'production', SHUTDOWN_TIMEOUT_MS: '2000' }).shutdownGraceMs).toBe(2000);
    expect(loadConfig({ SHUTDOWN_GRACE_MS: '0' }).shutdownGraceMs).toBe(0);
  });
});
