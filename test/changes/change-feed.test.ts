import request from 'supertest';
import type { ChangeEvent } from '../../src/changes/change-event';
import { DeleteFlightDocument, UpdateFlightDocument } from '../../src/graphql/generated/operations';
import { uniqueDatabaseName } from '../helpers/database';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/** Collects what a process's feed hands out, and waits for what a test expects. */
function record(testApp: TestApp) {
  const events: ChangeEvent[] = [];
  const stop = testApp.gateway.services.changes.listen((event) => events.push(event));
  const until = async (predicate: (seen: ChangeEvent[]) => boolean, what: string, timeoutMs = 60_000) => {
    const started = Date.now();
    while (!predicate(events)) {
      if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}; saw ${JSON.stringify(events.map((e) => [e.seq, e.type, e.flightId]))}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return events;
  };
  return { events, stop, until };
}

/** An updateFlight input that changes only what it names. */
const patch = (fields: Record<string, string>) => ({
  flightNumber: undefined, resourceId: undefined, departureIcao: undefined, departureAt: undefined, arrivalIcao: undefined, arrivalAt: undefined,
  backgroundColor: undefined, textColor: undefined, borderColor: undefined, ...fields,
});

const FLIGHT = { resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: '2026-12-21T09:00:00Z', arrivalAt: '2026-12-21T12:00:00Z' } as const;

describe('change feed: one event per committed change, from every process, across crashes', () => {
  const dbName = uniqueDatabaseName('change_feed');
  let first: TestApp;
  let second: TestApp;
  let writer: string;

  beforeAll(async () => {
    // Two service processes on one database, as a deployment with two replicas runs.
    first = await startTestApp('change_feed', { OUTBOX_SWEEP_INTERVAL_MS: '3600000' }, { dbName });
    second = await startTestApp('change_feed', { OUTBOX_SWEEP_INTERVAL_MS: '3600000' }, { dbName });
    writer = `Bearer ${await first.token(['passengers:write', 'passengers:read', 'timeline:read', 'flights:write'], 'ops-desk')}`;
    await createReferenceData(first);
  });
  afterAll(async () => {
    await second.close();
    await first.database.connection.dropDatabase();
    await first.close();
  });

  const push = (app: TestApp, flightId: number, body: object) =>
    request(app.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).send(body);

  it('tells both processes of a flight created, moved, its list pushed and the flight deleted, in commit order', async () => {
    const onFirst = record(first);
    const onSecond = record(second);
    const flightId = await createFlight(first, FLIGHT);
    const moved = await second.graphql(UpdateFlightDocument, { id: flightId, input: patch({ departureAt: '2026-12-22T09:00:00Z', arrivalAt: '2026-12-22T12:00:00Z' }) });
    expect(moved.body.errors).toBeUndefined();
    expect((await push(first, flightId, { created: [passengerRecord(1), passengerRecord(2)], modified: [], deleted: [] })).status).toBe(200);
    const change = await push(second, flightId, { created: [passengerRecord(3)], modified: [passengerRecord(1, { surname: 'Bianchi' })], deleted: [2] });
    expect(change.status).toBe(200);
    expect((await first.graphql(DeleteFlightDocument, { id: flightId })).body.data).toEqual({ deleteFlight: true });

    const ofFlight = (seen: ChangeEvent[]) => seen.filter((event) => event.flightId === flightId);
    for (const feed of [onFirst, onSecond]) {
      await feed.until((seen) => ofFlight(seen).length === 5, 'five events of the flight');
      const events = ofFlight(feed.events);
      expect(events.map((event) => event.type)).toEqual(['flight.created', 'flight.updated', 'passenger_list.updated', 'passenger_list.updated', 'flight.deleted']);
      // Strictly increasing sequence numbers: the order every process sees.
      expect(events.map((event) => event.seq)).toEqual([...events.map((event) => event.seq)].sort((a, b) => a - b));
      expect(new Set(events.map((event) => event.id)).size).toBe(5);
      const [created, updated, firstPush, secondPush, deleted] = events;
      expect(created.flight).toEqual({ resourceId: 1, departureAt: new Date(FLIGHT.departureAt), arrivalAt: new Date(FLIGHT.arrivalAt) });
      expect(updated.previous).toEqual(created.flight);
      expect(updated.flight?.departureAt).toEqual(new Date('2026-12-22T09:00:00Z'));
      expect(firstPush.passengerList).toEqual({ version: 1, created: [1, 2], modified: [], deleted: [], count: 2 });
      expect(secondPush.passengerList).toEqual({ version: 2, created: [3], modified: [1], deleted: [2], count: 2 });
      expect(deleted.flight).toEqual(updated.flight);
      expect(events.every((event) => event.subject === 'ops-desk' || event.subject === 'tester')).toBe(true);
    }
    onFirst.stop();
    onSecond.stop();

    // Stored once each, whichever process wrote it, and thin: no passenger data in the feed.
    const stored = await first.database.connection.db!.collection('change_events').find({ flightId, skip: { $ne: true } }).toArray();
    expect(stored).toHaveLength(5);
    expect(JSON.stringify(stored)).not.toMatch(/Rossi|Bianchi|YA100/);
    // Outboxes are empty once published, and the flight and its passenger data are gone.
    const db = first.database.connection.db!;
    expect(await db.collection('flights').countDocuments({ flightId })).toBe(0);
    const tombstone = await db.collection('passenger_lists').findOne({ flightId });
    expect(tombstone).toMatchObject({ passengers: [], history: [], outbox: [] });
  });

  it('writes no event for a push that changed nothing, a refused push or an unknown flight', async () => {
    const flightId = await createFlight(first, FLIGHT);
    const feed = record(second);
    await push(first, flightId, { created: [passengerRecord(1)], modified: [], deleted: [] });
    const events = first.database.connection.db!.collection('change_events');
    const before = await events.countDocuments({ flightId });
    // The same record again (a client's retry): nothing to change, nothing written.
    expect((await push(first, flightId, { created: [passengerRecord(1)], modified: [], deleted: [] })).status).toBe(200);
    // Invalid: refused whole.
    expect((await push(first, flightId, { created: [passengerRecord(2, { date_born: 'yesterday' })], modified: [], deleted: [] })).status).toBe(422);
    expect((await push(first, 999_999, { created: [passengerRecord(1)], modified: [], deleted: [] })).status).toBe(404);
    expect((await first.graphql(UpdateFlightDocument, { id: flightId, input: patch({ arrivalAt: '2026-12-20T00:00:00Z' }) })).body.errors).toBeDefined();
    expect(await events.countDocuments({ flightId })).toBe(before);
    // A real change after them is the next event the other process hears.
    await push(first, flightId, { created: [passengerRecord(2)], modified: [], deleted: [] });
    const seen = await feed.until((all) => all.some((event) => event.passengerList?.version === 2 && event.flightId === flightId), 'the real change');
    expect(seen.filter((event) => event.flightId === flightId && event.type === 'passenger_list.updated').map((event) => event.passengerList?.version)).toEqual([1, 2]);
    feed.stop();
  });

  it('publishes what a writer committed but did not publish before it crashed, once, when a sweep runs', async () => {
    const flightId = await createFlight(first, FLIGHT);
    const db = first.database.connection.db!;
    // What a process that crashed between its write and its publication leaves: an outbox entry.
    const at = new Date(Date.now() - 10_000);
    const orphan = { id: 'evt_orphan-of-a-crash', type: 'flight.updated', at, flightId, subject: 'crashed-process', flight: { resourceId: 2, departureAt: at, arrivalAt: at }, previous: null };
    await db.collection('flights').updateOne({ flightId }, { $push: { outbox: orphan } } as never);
    // And a deletion that crashed after its tombstone, before the flight document went.
    const doomed = await createFlight(first, FLIGHT);
    const deletion = { id: 'evt_half-done-delete', type: 'flight.deleted', at, flightId: doomed, subject: 'crashed-process', flight: null };
    await db.collection('passenger_lists').insertOne({ flightId: doomed, version: 0, passengers: [], passengerCount: 0, history: [], requests: [], deletedAt: at, outbox: [deletion] });

    const feed = record(first);
    // Both processes sweep at once: each event is still published once.
    await Promise.all([first.gateway.changes.sweep(), second.gateway.changes.sweep()]);
    await feed.until((seen) => seen.some((event) => event.id === deletion.id) && seen.some((event) => event.id === orphan.id), 'both orphans');
    expect(feed.events.filter((event) => event.id === orphan.id)).toHaveLength(1);
    expect(await db.collection('change_events').countDocuments({ _id: { $in: [orphan.id, deletion.id] } } as never)).toBe(2);
    expect(await db.collection('flights').countDocuments({ flightId: doomed })).toBe(0);
    expect(await db.collection('flights').countDocuments({ flightId, 'outbox.0': { $exists: true } })).toBe(0);
    feed.stop();
  });

  it('keeps the feed moving when two processes publish the same outbox at the same moment', async () => {
    const flightId = await createFlight(first, FLIGHT);
    const db = first.database.connection.db!;
    const at = new Date(Date.now() - 10_000);
    const entries = Array.from({ length: 20 }, (_, index) => ({ id: `evt_contended-${index}`, type: 'flight.updated', at, flightId, subject: 'x', flight: null, previous: null }));
    await db.collection('flights').updateOne({ flightId }, { $push: { outbox: { $each: entries } } } as never);
    const feed = record(second);
    await Promise.all([first.gateway.changes.publisher.publish('flight', flightId), second.gateway.changes.publisher.publish('flight', flightId)]);
    // Heard once each, in outbox order, and without waiting out a hole left by the loser's numbers.
    const seen = await feed.until((all) => all.filter((event) => event.id.startsWith('evt_contended-')).length === 20, 'twenty events', 1500);
    expect(seen.filter((event) => event.id.startsWith('evt_contended-')).map((event) => event.id)).toEqual(entries.map((entry) => entry.id));
    feed.stop();
  });
});
