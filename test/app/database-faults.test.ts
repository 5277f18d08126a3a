import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../src/app';
import { mintToken } from '../../src/auth';
import { loadConfig, type Config } from '../../src/config';
import { openDatabase, type Database } from '../../src/models';
import { createLogger } from '../../src/logger';
import { seedDemoData } from '../../src/seed/seed';
import { TEST_SECRET } from '../helpers/test-app';
import { freePort, killAll, startEngineProcess, waitFor } from './child-processes';

/**
 * The engine runs in a process of its own, as a real MongoDB would, so it can be frozen (SIGSTOP),
 * killed and restarted under the service. The time limits are set to 1 s; the bound asserted on
 * each answer is ten times that: a liveness guard against requests held for the operating
 * system's TCP time-outs (40 s and more before the limits existed), not a measurement.
 */
const LIMIT_MS = 1000;
const LIVENESS_BOUND_MS = 10 * LIMIT_MS;
const RESOURCES = '/api/broker/v0/resource/timeline/resources';

interface Service {
  app: Express;
  database: Database;
  token: string;
  stop(): Promise<void>;
}

async function startService(uri: string): Promise<Service> {
  const config: Config = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: TEST_SECRET,
    MONGODB_URI: uri,
    RATE_LIMIT_PER_MINUTE: '0',
    DB_OPERATION_TIMEOUT_MS: String(LIMIT_MS),
    DB_SERVER_SELECTION_TIMEOUT_MS: String(LIMIT_MS),
    READINESS_TIMEOUT_MS: String(LIMIT_MS),
  });
  const logger = createLogger(config);
  const database = await openDatabase(config, logger, { retryDelayMs: 200 });
  const gateway = await createApp({ config, logger, database });
  const token = await mintToken(config.auth, { sub: 'ops', scope: ['timeline:read'], ttlSeconds: 600 });
  return { app: gateway.app, database, token, stop: async () => (await gateway.stop(), await database.close()) };
}

/** Timed answer of one request; `elapsed` only feeds the liveness bound. */
async function timed<T>(send: () => PromiseLike<T>): Promise<{ response: T; elapsed: number }> {
  const started = Date.now();
  const response = await send();
  return { response, elapsed: Date.now() - started };
}

/** REST and GraphQL data requests at once, as a loaded service receives them. */
function dataRequests(service: Service, count: number) {
  return Array.from({ length: count }, (_, index) =>
    timed(() =>
      index % 2 === 0
        ? request(service.app).get(RESOURCES).set('Authorization', `Bearer ${service.token}`)
        : request(service.app).post('/graphql').set('Authorization', `Bearer ${service.token}`).send({ query: '{ resources { id } }' }),
    ),
  );
}

function expectAllUnavailable(answers: { response: request.Response; elapsed: number }[]): void {
  for (const { response, elapsed } of answers) {
    expect(response.status).toBe(503);
    const code = response.body.error?.code ?? response.body.errors?.[0]?.extensions?.code;
    expect(code).toBe('SERVICE_UNAVAILABLE');
    expect(elapsed).toBeLessThan(LIVENESS_BOUND_MS);
  }
}

async function waitUntilReady(service: Service): Promise<void> {
  await waitFor(async () => (await request(service.app).get('/readyz')).status === 200, 30_000);
}

describe('database faults, with the engine in a process of its own', () => {
  const services: Service[] = [];
  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await killAll();
  });

  it('answers 503 quickly while the engine is frozen, and serves the same data once it resumes', async () => {
    const engine = await startEngineProcess(await freePort());
    const service = await startService(`${engine.uri}/faults_frozen`);
    services.push(service);
    await service.database.ready;
    await seedDemoData(service.database.models, { flights: 0 });
    const before = await request(service.app).get(RESOURCES).set('Authorization', `Bearer ${service.token}`).expect(200);
    expect(before.body.length).toBeGreaterThan(0);

    engine.child.kill('SIGSTOP');
    expectAllUnavailable(await Promise.all(dataRequests(service, 12)));
    const ready = await timed(() => request(service.app).get('/readyz'));
    expect(ready.response.status).toBe(503);
    expect(ready.elapsed).toBeLessThan(LIVENESS_BOUND_MS);
    await request(service.app).get('/healthz').expect(200);

    engine.child.kill('SIGCONT');
    await waitUntilReady(service);
    const after = await request(service.app).get(RESOURCES).set('Authorization', `Bearer ${service.token}`).expect(200);
    expect(after.body).toEqual(before.body);
  });

  it('answers 503 quickly while the engine is dead, and recovers when it restarts on the same port', async () => {
    const port = await freePort();
    const engine = await startEngineProcess(port);
    const service = await startService(`${engine.uri}/faults_killed`);
    services.push(service);
    await service.database.ready;
    await request(service.app).get(RESOURCES).set('Authorization', `Bearer ${service.token}`).expect(200);

    engine.child.kill('SIGKILL');
    await engine.exited;
    expectAllUnavailable(await Promise.all(dataRequests(service, 12)));
    expect((await request(service.app).get('/readyz')).status).toBe(503);

    await startEngineProcess(port);
    await waitUntilReady(service);
    // A new engine holds no data, but the same service process answers again.
    const after = await request(service.app).get(RESOURCES).set('Authorization', `Bearer ${service.token}`).expect(200);
    expect(after.body).toEqual([]);
  });

  it('answers 503 quickly when the engine is down at start-up, and connects once it comes up', async () => {
    const port = await freePort();
    const service = await startService(`mongodb://127.0.0.1:${port}/faults_late`);
    services.push(service);

    expectAllUnavailable(await Promise.all(dataRequests(service, 4)));
    const ready = await timed(() => request(service.app).get('/readyz'));
    expect(ready.response.status).toBe(503);
    expect(ready.elapsed).toBeLessThan(LIVENESS_BOUND_MS);

    await startEngineProcess(port);
    await service.database.ready;
    await waitUntilReady(service);
    await request(service.app).get(RESOURCES).set('Authorization', `Bearer ${service.token}`).expect(200);
  });
});
