import { Writable } from 'node:stream';
import { MongoClient, MongoServerError } from 'mongodb';
import pino from 'pino';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/models';
import { startEmbeddedMongo, type EmbeddedMongo } from '@broker/embedded-mongo';
import { DeleteFlightDocument, PassengerListDocument } from '../../src/graphql/generated/operations';
import { buildPassengerWorkbook, passenger } from '../helpers/passenger-workbook';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * The service on a standalone MongoDB (no transactions, no retryable writes): a second embedded
 * engine of this file's own, answering like a standalone mongod, which refuses any transaction.
 */
describe('the service on a standalone MongoDB', () => {
  let engine: EmbeddedMongo;
  let testApp: TestApp;
  let writer: string;
  let transactionCommands: number;

  beforeAll(async () => {
    engine = await startEmbeddedMongo({ topology: 'standalone' });
    testApp = await startTestApp('standalone', {}, { serverUri: engine.uri, monitorCommands: true });
    transactionCommands = 0;
    testApp.database.connection.getClient().on('commandStarted', (event) => {
      if (event.command.txnNumber !== undefined || event.command.startTransaction !== undefined) transactionCommands += 1;
    });
    writer = `Bearer ${await testApp.token(['passengers:write', 'passengers:read', 'timeline:read'], 'ops-desk')}`;
    await createReferenceData(testApp);
  });
  afterAll(async () => {
    await testApp?.close();
    await engine?.stop();
  });
  afterEach(() => {
    // The standalone refuses any command carrying a transaction number, so none may have been sent.
    expect(transactionCommands).toBe(0);
  });

  const push = (flightId: number, ids: number[], key?: string) => {
    const call = request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer);
    if (key) call.set('Idempotency-Key', key);
    return call.send({ created: ids.map((id) => passengerRecord(id)), modified: [], deleted: [] });
  };

  it('really is a standalone: no setName, transactions refused, and the service knows it', async () => {
    const client = await MongoClient.connect(`${engine.uri}/probe`);
    try {
      const hello = await client.db().admin().command({ hello: 1 });
      expect(hello.setName).toBeUndefined();
      const session = client.startSession();
      const error = await session
        .withTransaction(async () => {
          await client.db().collection('probe').insertOne({ a: 1 }, { session });
        })
        .catch((caught: unknown) => caught);
      await session.endSession();
      // The driver words a refused write as below, keeping mongod's own answer as originalError.
      expect(error).toBeInstanceOf(MongoServerError);
      expect((error as Error).message).toMatch(/does not support retryable writes/);
      expect((error as { originalError?: unknown }).originalError).toMatchObject({
        code: 20,
        codeName: 'IllegalOperation',
        errmsg: 'Transaction numbers are only allowed on a replica set member or mongos',
      });
      expect(await client.db().collection('probe').countDocuments()).toBe(0);
    } finally {
      await client.db().dropDatabase();
      await client.close();
    }
    expect(testApp.database.supportsTransactions).toBe(false);
  });

  it('creates a flight, takes a passenger push and reads the list back', async () => {
    const flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: '2026-12-21T09:00:00Z', arrivalAt: '2026-12-21T12:00:00Z' });
    const pushed = await push(flightId, [1, 2, 3]).expect(200);
    expect(pushed.body).toMatchObject({ status: 'ok', flight_id: flightId, version: 1, created: 3, passengers: 3 });
    const keyed = await push(flightId, [4], 'standalone-key').expect(200);
    expect(keyed.body).toMatchObject({ version: 2, passengers: 4 });
    // The same key again replays the first answer and writes nothing more.
    expect((await push(flightId, [4], 'standalone-key').expect(200)).body).toEqual(keyed.body);
    const read = await testApp.graphql(PassengerListDocument, { flightId });
    expect(read.body.data!.passengerList.passengers.map((entry: { id: number }) => entry.id)).toEqual([1, 2, 3, 4]);
  });

  it('deletes a flight while pushes race it, leaving no passenger data and answering 200 or 404', async () => {
    const lists = testApp.database.connection.db!.collection('passenger_lists');
    let landed = 0;
    for (let round = 0; round < 4; round += 1) {
      const flightId = await createFlight(testApp, { resourceId: 2, from: 'LIML', to: 'LGAV', departureAt: '2026-12-22T09:00:00Z', arrivalAt: '2026-12-22T11:00:00Z' });
      // Each a promise of its own (a supertest request runs again each time it is awaited).
      const early = [1, 2, 3, 4].map((id) => push(flightId, [id], id % 2 ? `early-${round}-${id}` : undefined).then((response) => response));
      // Later in each round (0 to 180 ms): early rounds race pushes still arriving, late ones pushes
      // mid-write or done. The last round waits for an early push's answer, so one push surely
      // landed before a delete, however the machine's load orders the others.
      const sendAt = round === 3 ? early[0] : new Promise((resolve) => setTimeout(resolve, round * round * 20));
      const deletion = sendAt.then(() => testApp.graphql(DeleteFlightDocument, { id: flightId }));
      const late = [5, 6, 7, 8].map((id) => push(flightId, [id], id % 2 ? `late-${round}-${id}` : undefined));
      const [deleted, ...responses] = await Promise.all([deletion, ...early, ...late]);
      expect(deleted.body.data).toEqual({ deleteFlight: true });
      for (const response of responses) expect([200, 404]).toContain(response.status);
      landed += responses.filter((response) => response.status === 200).length;
      expect(await lists.countDocuments({ flightId, 'passengers.0': { $exists: true } })).toBe(0);
      expect((await push(flightId, [9]).expect(404)).body.error.code).toBe('NOT_FOUND');
      expect((await testApp.graphql(PassengerListDocument, { flightId })).status).toBe(404);
    }
    // Pushes landed before deletes (the last round's surely): the race was really run.
    expect(landed).toBeGreaterThan(0);
  });

  it('parses an uploaded passenger spreadsheet', async () => {
    const flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T11:30:00Z' });
    const bytes = await buildPassengerWorkbook([passenger(), passenger({ surname: 'Bianchi', name: 'Anna', email: null, phone: null })]);
    const response = await request(testApp.app)
      .post(`/api/broker/v0/upload/${flightId}`)
      .set('Authorization', writer)
      .attach('paxlist', bytes, { filename: 'paxlist.xlsx', contentType: XLSX })
      .expect(200);
    expect(response.body).toHaveLength(2);
    expect(response.body[1]).toMatchObject({ surname: 'BIANCHI', name: 'ANNA', idvolo: flightId, row_number: 2 });
  });
});

describe('detecting what the server supports', () => {
  const logged = async (engine: EmbeddedMongo) => {
    const lines: Array<{ level: number; msg: string }> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: TEST_SECRET });
    const database = await openDatabase(config, pino({ level: 'info' }, sink), { uri: `${engine.uri}/detect` });
    await database.ready;
    const supportsTransactions = database.supportsTransactions;
    await database.close();
    return { supportsTransactions, warnings: lines.filter((line) => line.level === 40).map((line) => line.msg) };
  };

  it('warns once at start-up on a standalone, and not on a replica set', async () => {
    const standalone = await startEmbeddedMongo({ topology: 'standalone' });
    const replicaSet = await startEmbeddedMongo();
    try {
      const onStandalone = await logged(standalone);
      expect(onStandalone.supportsTransactions).toBe(false);
      expect(onStandalone.warnings).toHaveLength(1);
      expect(onStandalone.warnings[0]).toMatch(/standalone.*transactions/);
      const onReplicaSet = await logged(replicaSet);
      expect(onReplicaSet.supportsTransactions).toBe(true);
      expect(onReplicaSet.warnings).toEqual([]);
    } finally {
      await standalone.stop();
      await replicaSet.stop();
    }
  });
});
