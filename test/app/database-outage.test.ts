import request from 'supertest';
import { createApp, type GatewayApp } from '../../src/app';
import { mintToken } from '../../src/auth';
import { loadConfig } from '../../src/config';
import { openDatabase, type Database } from '../../src/models';
import { startEmbeddedMongo, type EmbeddedMongo } from '@broker/embedded-mongo';
import { createLogger } from '../../src/logger';
import { TEST_SECRET } from '../helpers/test-app';
import { waitFor } from './child-processes';

const RESOURCES = '/api/broker/v0/resource/timeline/resources';
/** The fast path's words; a driver time-out says "The database is unavailable; try again shortly". */
const KNOWN_DOWN = /^The database is down \(known for \d+ s\): the request was not tried; try again shortly$/;

/** A server we can take down and bring back: an embedded engine of this test's own. */
describe('a database outage', () => {
  let engine: EmbeddedMongo;
  let database: Database;
  let gateway: GatewayApp | undefined;

  afterAll(async () => {
    await gateway?.stop();
    await database?.close();
    await engine?.stop();
  });

  it('once the driver knows the server is down, answers data requests 503 with Retry-After without trying them, and serves again when it returns', async () => {
    engine = await startEmbeddedMongo();
    // Time limits of ten minutes: a data request that waited for the driver to find a server would
    // hold this test past jest's time-out; only the known-down path answers at once.
    const config = loadConfig({
      NODE_ENV: 'test',
      JWT_SECRET: TEST_SECRET,
      MONGODB_URI: `${engine.uri}/outage`,
      RATE_LIMIT_PER_MINUTE: '0',
      DB_OPERATION_TIMEOUT_MS: '600000',
      DB_SERVER_SELECTION_TIMEOUT_MS: '600000',
      READINESS_TIMEOUT_MS: '1000',
    });
    const logger = createLogger(config);
    database = await openDatabase(config, logger);
    await database.ready;
    gateway = await createApp({ config, logger, database });
    const { app } = gateway;
    const token = await mintToken(config.auth, { sub: 'ops', scope: ['timeline:read'], ttlSeconds: 600 });
    const ready = await request(app).get('/readyz').expect(200);
    expect(ready.body).toMatchObject({ status: 'ready', database: { reachable: true, knownDown: false } });

    await engine.stop();
    // The driver's monitor notices at its next check (DB_HEARTBEAT_FREQUENCY_MS).
    let down: request.Response | undefined;
    await waitFor(async () => (down = await request(app).get('/readyz')).body.database?.knownDown === true, 30_000);
    expect(down!.status).toBe(503);
    expect(down!.body).toMatchObject({ status: 'unavailable', database: { reachable: false, knownDown: true } });
    await request(app).get('/healthz').expect(200);

    const rest = await request(app).get(RESOURCES).set('Authorization', `Bearer ${token}`);
    expect(rest.status).toBe(503);
    expect(rest.headers['retry-after']).toBe('1');
    expect(rest.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(KNOWN_DOWN) });
    const graphql = await request(app).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query: '{ resources { id } }' });
    expect(graphql.status).toBe(503);
    expect(graphql.headers['retry-after']).toBe('1');
    expect(graphql.body.data).toBeUndefined();
    expect(graphql.body.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(KNOWN_DOWN), extensions: { code: 'SERVICE_UNAVAILABLE' } })]);
    // Many at once: none waits for another (or for a server).
    const many = await Promise.all(Array.from({ length: 20 }, () => request(app).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query: '{ resources { id } }' })));
    expect(many.map((answer) => answer.status)).toEqual(Array(20).fill(503));
    // Introspection needs no database.
    const typename = await request(app).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query: '{ __typename }' });
    expect(typename.status).toBe(200);
    expect(typename.body).toEqual({ data: { __typename: 'Query' } });

    engine = await startEmbeddedMongo({ port: engine.port });
    await waitFor(async () => (await request(app).get('/readyz')).status === 200, 30_000);
    // The restarted engine is empty, but the same process serves data again.
    const after = await request(app).get(RESOURCES).set('Authorization', `Bearer ${token}`);
    expect(after.status).toBe(200);
    expect(after.body).toEqual([]);
  });
});
