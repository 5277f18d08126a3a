import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

interface Started {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts src/main.ts as `npm start` would run it, with only the given environment. */
function startService(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['-r', './test/helpers/register-ts.cjs', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('timed out');
}

describe('the service process', () => {
  it('starts on the embedded engine with demo data, says so, and exits 0 on SIGTERM after in-flight requests', async () => {
    const port = String(40000 + Math.floor(Math.random() * 20000));
    const service = startService({ PORT: port, HOST: '127.0.0.1', NODE_ENV: 'development' });
    try {
      await waitFor(() => /listening on/.test(service.output()), 20000);
      expect(service.output()).toMatch(/EMBEDDED development engine.*not a production database/);
      expect(service.output()).toMatch(/demo data loaded/);
      const token = /Bearer (eyJ[\w-]+\.[\w-]+\.[\w-]+)/.exec(service.output())![1];
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);

      const today = new Date().toISOString().slice(0, 10);
      const inFlight = fetch(`http://127.0.0.1:${port}/api/broker/v0/calendar/timeline/event?start=${today}&end=${today}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      // Let the request reach the server, then ask it to stop while the request is being served.
      await new Promise((resolve) => setTimeout(resolve, 15));
      service.child.kill('SIGTERM');
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(Array.isArray(await response.json())).toBe(true);
      const requestId = response.headers.get('x-request-id');
      expect(await service.exited).toBe(0);
      expect(service.output()).toMatch(/"msg":"stopped"/);
      // Structured JSON request logs carry the request id the response announced.
      const logged = service.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
      expect(logged.find((entry) => entry.req?.url?.startsWith('/api/broker/v0/calendar'))).toMatchObject({ req: { id: requestId }, res: { statusCode: 200 } });
    } finally {
      service.child.kill('SIGKILL');
    }
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ TIMEZONE: 'Europe/Atlantis' }, 'TIMEZONE'],
    [{ MONGODB_URI: 'postgres://db/broker' }, 'MONGODB_URI'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ CORS_ORIGINS: 'https://ops.example.com/calendar' }, 'CORS_ORIGINS'],
    [{ NODE_ENV: 'production' }, 'JWT_SECRET'],
  ])('refuses to start with bad configuration %j, naming %s', async (env, variable) => {
    const service = startService(env);
    expect(await service.exited).toBe(1);
    expect(service.output()).toContain(variable);
    expect(service.output()).not.toMatch(/\n\s+at /);
  });
});
