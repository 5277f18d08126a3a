import type { Client } from 'graphql-ws';
import { MongoClient } from 'mongodb';
import request from 'supertest';
import { startEmbeddedMongo, type EmbeddedMongo } from '@broker/embedded-mongo';
import { waitFor } from '../app/child-processes';
import { listen } from '../clients/listening-app';
import { uniqueDatabaseName } from '../helpers/database';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { bearer, ResultQueue, subscriptionsListening, wsClient } from '../subscriptions/live-app';

/*
 * The change feed whatever the sequence does: numbers stored late (a database stall between taking
 * a number and storing the event), a sequence that goes backwards (a restored database, dropped
 * counters), and many pushes on one list at once. Two service processes on one database, on an
 * engine of this file's own that answers configureFailPoint (MongoDB's way of injecting a stall).
 */

jest.setTimeout(90_000);

interface Change {
  timelineChanged: { change: string; eventType: string; flightId: number; seq: number };
}
const WATCH = 'subscription { timelineChanged(start: "2026-10-01", end: "2026-10-31") { change eventType flightId seq } }';

describe('change feed: no event lost to an open subscription, whatever the sequence does', () => {
  const dbName = uniqueDatabaseName('sequence_faults');
  let engine: EmbeddedMongo;
  let driver: MongoClient;
  let writer: TestApp;
  let reader: TestApp;
  let readerServer: Awaited<ReturnType<typeof listen>>;
  let client: Client;
  let token: string;

  beforeAll(async () => {
    engine = await startEmbeddedMongo({ testCommands: true });
    // The writer's operation budget outlasts the injected stall: the stalled insert lands, late.
    writer = await startTestApp('sequence_faults', { OUTBOX_SWEEP_INTERVAL_MS: '3600000', DB_OPERATION_TIMEOUT_MS: '60000' }, { dbName, serverUri: engine.uri });
    reader = await startTestApp('sequence_faults', { OUTBOX_SWEEP_INTERVAL_MS: '3600000' }, { dbName, serverUri: engine.uri });
    readerServer = await listen(reader.app, reader.gateway);
    driver = await MongoClient.connect(engine.uri);
    token = await writer.token();
    await createReferenceData(writer);
    client = wsClient(`${readerServer.url.replace(/^http/, 'ws')}/graphql`, bearer(token));
  });
  afterAll(async () => {
    await driver?.db('admin').command({ configureFailPoint: 'failCommand', mode: 'off' });
    await client?.dispose();
    await readerServer?.close();
    await reader?.close();
    await writer?.database.connection.dropDatabase();
    await writer?.close();
    await driver?.close();
    await engine?.stop();
  });

  const db = () => driver.db(dbName);
  const push = (app: TestApp, flightId: number, recordId: number) =>
    request(app.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', `Bearer ${token}`).send({ created: [passengerRecord(recordId)], modified: [], deleted: [] });
  const counter = async () => (await db().collection<{ _id: string; seq: number }>('counters').findOne({ _id: 'change_event' }))?.seq ?? 0;
  const flightOn = (day: number) => createFlight(writer, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: `2026-10-${String(day).padStart(2, '0')}T08:00:00Z`, arrivalAt: `2026-10-${String(day).padStart(2, '0')}T09:00:00Z` });

  it('delivers an event stored 10 s after it took its number, and does not hold the later ones back for it', async () => {
    const timeline = new ResultQueue<Change>(client, WATCH);
    await subscriptionsListening(client);
    const stalled = await flightOn(2);
    const other = await flightOn(3);
    expect((await timeline.data()).timelineChanged).toMatchObject({ change: 'ENTERED', flightId: stalled });
    expect((await timeline.data()).timelineChanged).toMatchObject({ change: 'ENTERED', flightId: other });

    // The next insert into change_events stalls 10 s on the server, after its number was taken.
    await driver.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: { failCommands: ['insert'], namespace: `${dbName}.change_events`, blockConnection: true, blockTimeMS: 10_000 },
    });
    const before = await counter();
    const stalledPush = push(writer, stalled, 1).then((response) => response);
    await waitFor(async () => (await counter()) > before, 30_000);
    const stalledSeq = await counter();
    // Pushed on the other process while the first event is not stored yet: it takes the next number.
    expect((await push(reader, other, 1)).status).toBe(200);

    const first = (await timeline.data()).timelineChanged;
    expect(first).toMatchObject({ change: 'CHANGED', eventType: 'passenger_list.updated', flightId: other });
    expect(first.seq).toBeGreaterThan(stalledSeq);
    // The stalled event arrives when it is stored, after the one with the higher number.
    const late = (await timeline.data()).timelineChanged;
    expect(late).toEqual({ change: 'CHANGED', eventType: 'passenger_list.updated', flightId: stalled, seq: stalledSeq });
    expect((await stalledPush).status).toBe(200);
    timeline.unsubscribe();
  });

  /** The next passenger-list event: the feed may still hand on the flight's own creation, read after the subscription began. */
  async function nextListEvent(queue: ResultQueue<Change>): Promise<Change['timelineChanged']> {
    for (;;) {
      const change = (await queue.data()).timelineChanged;
      if (change.eventType !== 'flight.created') return change;
    }
  }

  it('goes on delivering after the sequence went backwards (the change events and counters of an older backup)', async () => {
    const flightId = await flightOn(5);
    const timeline = new ResultQueue<Change>(client, WATCH);
    await subscriptionsListening(client);
    expect((await push(writer, flightId, 1)).status).toBe(200);
    expect((await nextListEvent(timeline))).toMatchObject({ flightId, eventType: 'passenger_list.updated' });
    // A restore from an older backup: the feed and its counter are far behind what processes read.
    await db().collection('change_events').deleteMany({});
    await db().collection('counters').deleteOne({ _id: 'change_event' } as never);

    expect((await push(writer, flightId, 2)).status).toBe(200);
    expect((await nextListEvent(timeline))).toMatchObject({ flightId, eventType: 'passenger_list.updated', seq: 1 });
    // And the next one, from the other process.
    expect((await push(reader, flightId, 3)).status).toBe(200);
    expect((await nextListEvent(timeline))).toMatchObject({ flightId, eventType: 'passenger_list.updated', seq: 2 });
    timeline.unsubscribe();
  });

  it('publishes and delivers after the counter alone was dropped (stored events keep their numbers)', async () => {
    const flightId = await flightOn(6);
    const timeline = new ResultQueue<Change>(client, WATCH);
    await subscriptionsListening(client);
    const newest = (await db().collection('change_events').find().sort({ seq: -1 }).limit(1).toArray())[0].seq as number;
    await db().collection('counters').deleteOne({ _id: 'change_event' } as never);

    expect((await push(writer, flightId, 1)).status).toBe(200);
    const seen = (await nextListEvent(timeline));
    expect(seen).toMatchObject({ flightId, eventType: 'passenger_list.updated' });
    expect(seen.seq).toBeGreaterThan(newest);
    // Nothing left in the outbox for a sweep: the push published its event.
    expect(await db().collection('passenger_lists').countDocuments({ flightId, 'outbox.0': { $exists: true } })).toBe(0);
    timeline.unsubscribe();
  });

  it('finishes the outbox of a publisher that died after storing part of it: what it stored is not stored again', async () => {
    const flightId = await flightOn(9);
    const at = new Date(Date.now() - 60_000);
    const entries = ['a', 'b'].map((name) => ({ id: `evt_died-${name}-${flightId}`, type: 'flight.updated', at, flightId, subject: 'x', flight: null, previous: null }));
    // It stored the first entry under a number, then died holding the outbox (its lease has lapsed since).
    const seq = (await counter()) + 1;
    await db().collection('counters').updateOne({ _id: 'change_event' } as never, { $set: { seq } });
    await db().collection('change_events').insertOne({ _id: entries[0].id, seq, ...entries[0], webhooksDispatched: false } as never);
    await db().collection('flights').updateOne({ flightId }, { $push: { outbox: { $each: entries } }, $set: { outboxLease: { owner: 'dead', until: new Date(Date.now() - 1000) } } } as never);

    await reader.gateway.changes.sweep();
    const stored = await db().collection('change_events').find({ seq: { $gte: seq } }).sort({ seq: 1 }).toArray();
    expect(stored.map((event) => [event._id, event.seq])).toEqual([[entries[0].id, seq], [entries[1].id, seq + 1]]);
    expect(await db().collection('flights').findOne({ flightId }, { projection: { _id: 0, outbox: 1, outboxLease: 1 } })).toEqual({ outbox: [] });
  });

  it('publishes each event of many pushes on one list at once, from two processes, once: no placeholder numbers', async () => {
    const flightId = await flightOn(8);
    const before = await counter();
    const responses = await Promise.all(Array.from({ length: 16 }, (_, index) => push(index % 2 ? reader : writer, flightId, index + 1)));
    expect(responses.map((response) => response.status)).toEqual(Array(16).fill(200));
    const stored = await db().collection('change_events').find({ seq: { $gt: before } }).sort({ seq: 1 }).toArray();
    expect(stored.filter((event) => event.skip)).toEqual([]);
    // One event per applied push, in version order, and no number spent twice.
    expect(stored.map((event) => event.passengerList?.version)).toEqual(Array.from({ length: 16 }, (_, index) => index + 1));
    expect(await counter()).toBe(before + 16);
  });
});
