import http from 'node:http';
import { passengerRecord } from '../helpers/passengers';
import { freePort, killAll, startEngineProcess, startTypeScript, waitFor, type Started } from './child-processes';

/*
 * A rolling restart as a proxy sees it: the service process gets SIGTERM while requests are on
 * their way, on new connections and on kept-alive ones. Nothing that reached the process may be
 * lost (a reset, a hang-up, a 5xx): a proxy cannot tell a lost push from one that was applied.
 */

jest.setTimeout(300_000);

const RESOURCES = '/api/broker/v0/resource/timeline/resources';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  reusedSocket: boolean;
}

interface Service extends Started {
  port: number;
  token: string;
}

async function startService(env: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const service = startTypeScript('src/main.ts', [], { PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'development', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '0', ...env });
  await waitFor(() => (/listening on/.test(service.output()) && /Bearer eyJ/.test(service.output())) || service.child.exitCode !== null, 150_000).catch((error: Error) => {
    throw new Error(`${error.message}; the output so far:\n${service.output()}`);
  });
  const token = /Bearer (eyJ[\w-]+\.[\w-]+\.[\w-]+)/.exec(service.output())![1];
  return { ...service, port, token };
}

/** One request; rejects with the socket's error (ECONNRESET, ECONNREFUSED, "socket hang up"). */
function send(port: number, options: { path: string; method?: string; body?: unknown; token?: string; agent?: http.Agent | false; written?: () => void }): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: options.path,
        method: options.method ?? 'GET',
        agent: options.agent ?? false,
        headers: {
          ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
          ...(body ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), reusedSocket: req.reusedSocket }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    // 'finish': the whole request is in the operating system's hands, on a connected socket.
    if (options.written) req.on('finish', options.written);
    req.end(body);
  });
}

/** A flight of the demo data (the embedded engine is seeded at start). */
async function someFlightId(service: Service): Promise<number> {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const query = `{ flights(start: "${day(-30)}", end: "${day(300)}") { flightId } }`;
  const answer = await send(service.port, { path: '/graphql', method: 'POST', token: service.token, body: { query } });
  const flights = JSON.parse(answer.body).data?.flights as { flightId: number }[] | undefined;
  if (!flights?.length) throw new Error(`no demo flight: ${answer.body}`);
  return flights[0].flightId;
}

describe('SIGTERM under traffic', () => {
  afterAll(() => killAll());

  it('opens its port only once the database answers: refused before (a proxy goes elsewhere), served from the first request after', async () => {
    const databasePort = await freePort();
    const port = await freePort();
    const service = startTypeScript('src/main.ts', [], {
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      MONGODB_URI: `mongodb://127.0.0.1:${databasePort}/late_start`,
      DB_SERVER_SELECTION_TIMEOUT_MS: '500',
    });
    // The process runs and retries; the port stays closed meanwhile.
    await waitFor(() => /cannot reach MongoDB; retrying/.test(service.output()) || service.child.exitCode !== null, 150_000);
    expect(service.child.exitCode).toBeNull();
    await expect(send(port, { path: '/healthz' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    await startEngineProcess(databasePort);
    await waitFor(() => (/listening on/.test(service.output()) && /Bearer eyJ/.test(service.output())) || service.child.exitCode !== null, 150_000);
    const token = /Bearer (eyJ[\w-]+\.[\w-]+\.[\w-]+)/.exec(service.output())![1];
    // Served from the first request: no 503 while a connection is still being made.
    const ready = await send(port, { path: '/readyz' });
    expect(ready.status).toBe(200);
    const resources = await send(port, { path: RESOURCES, token });
    expect([resources.status, JSON.parse(resources.body)]).toEqual([200, []]);
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });

  it('serves what reached it during the grace: idle kept-alive connections reused after the signal, and connections opened just before it', async () => {
    // A grace far longer than the few requests below take, so each is sent within it.
    const service = await startService({ SHUTDOWN_GRACE_MS: '15000', SHUTDOWN_TIMEOUT_MS: '60000' });
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const warm = await Promise.all(Array.from({ length: 4 }, () => send(service.port, { path: RESOURCES, token: service.token, agent: keepAlive })));
    expect(warm.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(warm.map((answer) => answer.headers.connection)).toEqual(Array(4).fill('keep-alive'));

    // Twenty requests on new connections, each written to a connected socket, then the signal.
    const written: Promise<void>[] = [];
    const fresh = Array.from({ length: 20 }, () => {
      let sent!: () => void;
      written.push(new Promise<void>((resolve) => (sent = resolve)));
      return send(service.port, { path: RESOURCES, token: service.token, written: sent });
    });
    await Promise.all(written);
    service.child.kill('SIGTERM');
    await waitFor(() => /shutting down/.test(service.output()), 30_000);

    // The kept-alive connections are still open: requests on them are served, and told to stop reusing.
    const reused = await Promise.all(Array.from({ length: 4 }, () => send(service.port, { path: RESOURCES, token: service.token, agent: keepAlive })));
    expect(reused.map((answer) => [answer.status, answer.reusedSocket, answer.headers.connection])).toEqual(Array(4).fill([200, true, 'close']));
    // A proxy's health check learns the process is stopping; a new connection is still served.
    const ready = await send(service.port, { path: '/readyz' });
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'stopping' });
    expect(ready.headers.connection).toBe('close');
    const answers = await Promise.all(fresh);
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));

    // After the grace the port is closed: a proxy's connection is refused, nothing is sent.
    await waitFor(() => /no longer accepting connections/.test(service.output()), 60_000);
    await expect(send(service.port, { path: '/healthz' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    keepAlive.destroy();
    expect(await service.exited).toBe(0);
    expect(service.output()).not.toMatch(/requests cut/);
  });

  /**
   * A proxy as deployments run one: it reuses connections (a keep-alive agent), checks /readyz
   * every 100 ms and stops sending new requests to a process that is not ready; a refused
   * connection is one it may send elsewhere (nothing was sent). Reads and pushes run all along.
   */
  it.each([1, 2, 3, 4, 5])('loses no request of a proxy reusing connections across a SIGTERM (run %i)', async () => {
    const service = await startService({ SHUTDOWN_GRACE_MS: '3000', SHUTDOWN_TIMEOUT_MS: '60000' });
    const flightId = await someFlightId(service);
    // More pooled connections than requests in flight, reused in turn: some are always idle, as a
    // proxy's upstream pool is between bursts.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 12, scheduling: 'fifo' });
    const warm = await Promise.all(Array.from({ length: 12 }, () => send(service.port, { path: RESOURCES, token: service.token, agent })));
    expect(warm.every((answer) => answer.status === 200)).toBe(true);
    let routing = true;
    let sentAfterSignal = 0;
    let signalled = false;
    const health = (async () => {
      while (routing) {
        const ready = await send(service.port, { path: '/readyz' }).catch(() => undefined);
        if (ready?.status !== 200) routing = false;
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    const lost: string[] = [];
    let answered = 0;
    let refused = 0;
    let pushes = 0;
    let nextPassenger = 1;
    const worker = async (index: number) => {
      while (routing) {
        const push = index % 2 === 0;
        const request = push
          ? { path: `/api/broker/v0/flight/${flightId}/passenger`, method: 'POST', body: { created: [passengerRecord(10_000 + nextPassenger++)], modified: [], deleted: [] } }
          : { path: RESOURCES };
        if (signalled) sentAfterSignal += 1;
        try {
          const answer = await send(service.port, { ...request, token: service.token, agent });
          if (answer.status !== 200) lost.push(`${request.path}: ${answer.status} ${answer.body}`);
          else {
            answered += 1;
            if (push) pushes += 1;
          }
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') refused += 1;
          else lost.push(`${request.path}: ${(error as Error).message}`);
        }
      }
    };
    const workers = Array.from({ length: 6 }, (_, index) => worker(index));
    await waitFor(() => answered >= 30, 60_000);
    // And clients on connections of their own, whose requests are on the wire when the signal comes.
    const written: Promise<void>[] = [];
    const fresh = Array.from({ length: 10 }, () => {
      let sent!: () => void;
      written.push(new Promise<void>((resolve) => (sent = resolve)));
      return send(service.port, { path: RESOURCES, token: service.token, written: sent }).then(
        (answer) => (answer.status === 200 ? undefined : `fresh: ${answer.status} ${answer.body}`),
        (error: Error) => `fresh: ${error.message}`,
      );
    });
    await Promise.all(written);
    signalled = true;
    service.child.kill('SIGTERM');
    await Promise.all([...workers, health]);
    lost.push(...(await Promise.all(fresh)).filter((problem): problem is string => problem !== undefined));
    // The proxy dropped this process: it closes its idle connections to it.
    agent.destroy();

    expect(lost).toEqual([]);
    expect(pushes).toBeGreaterThan(0);
    // The traffic did go on after the signal (the grace served it); a refused one was never sent.
    expect(sentAfterSignal).toBeGreaterThan(0);
    expect(refused).toBeLessThanOrEqual(sentAfterSignal);
    expect(await service.exited).toBe(0);
    expect(service.output()).not.toMatch(/requests cut/);
  });
});
