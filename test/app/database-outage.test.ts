import request from 'supertest';
import { createApp } from '../../src/app';
import { mintToken } from '../../src/auth';
import { loadConfig } from '../../src/config';
import { openDatabase, type Database } from '../../src/db/database';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../src/db/embedded';
import { createLogger } from '../../src/logger';
import { TEST_SECRET } from '../helpers/test-app';

/** A server we can take down and bring back: an embedded engine of this test's own. */
describe('a database outage', () => {
  let engine: EmbeddedMongo;
  let database: Database;

  afterAll(async () => {
    await database?.close();
    await engine?.stop();
  });

  it('turns /readyz, REST and GraphQL data requests to 503, then recovers when the server returns', async () => {
    engine = await startEmbeddedMongo();
    const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: TEST_SECRET, MONGODB_URI: `${engine.uri}/outage` });
    const logger = createLogger(config);
    database = await openDatabase(config, logger);
    await database.ready;
    const { app, stop } = await createApp({ config, logger, database });

    await request(app).get('/readyz').expect(200);

    await engine.stop();
    const down = await request(app).get('/readyz').expect(503);
    expect(down.body).toMatchObject({ status: 'unavailable', database: { reachable: false } });
    await request(app).get('/healthz').expect(200);
    const token = await mintToken(config.auth, { sub: 'ops', scope: ['timeline:read'], ttlSeconds: 600 });
    const rest = await request(app).get('/api/broker/v0/resource/timeline/resources').set('Authorization', `Bearer ${token}`);
    expect(rest.status).toBe(503);
    expect(rest.body.error.code).toBe('SERVICE_UNAVAILABLE');
    const graphql = await request(app).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query: '{ resources { id } }' });
    expect(graphql.status).toBe(503);
    expect(graphql.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');

    engine = await startEmbeddedMongo({ port: engine.port });
    let ready = 503;
    for (let attempt = 0; attempt < 40 && ready !== 200; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      ready = (await request(app).get('/readyz')).status;
    }
    expect(ready).toBe(200);
    // The restarted engine is empty, but the same process serves data again.
    const after = await request(app).get('/api/broker/v0/resource/timeline/resources').set('Authorization', `Bearer ${token}`);
    expect(after.status).toBe(200);
    expect(after.body).toEqual([]);
    await stop();
  });
});
