import { calculateObjectSize } from 'bson';
import request from 'supertest';
import { PassengerListHistoryDocument } from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/** Two dozen pushes on a 1,500-passenger list; minutes on a two-core machine at load 30 and more (a liveness bound, not a speed check: benchmarks measure speed). */
const HEAVY_TEST_TIMEOUT_MS = 600_000;

/** What one keyed push may add to a list's stored size: a compact record, never its answer. */
const BYTES_PER_KEYED_PUSH = 1024;

describe('passenger list storage stays bounded', () => {
  let testApp: TestApp;
  let writer: string;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_bounds', { PASSENGER_LIST_MAX_PASSENGERS: '1600' });
    writer = `Bearer ${await testApp.token(['passengers:write', 'passengers:read'], 'ops-desk')}`;
    await createReferenceData(testApp);
  });
  afterAll(() => testApp.close());

  const lists = () => testApp.database.connection.db!.collection('passenger_lists');
  const storedSize = async (flightId: number) => calculateObjectSize((await lists().findOne({ flightId }))!);
  const newFlight = () => createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: '2026-12-20T09:00:00Z', arrivalAt: '2026-12-20T12:00:00Z' });
  const push = (flightId: number, body: unknown, key?: string) => {
    const call = request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer);
    if (key) call.set('Idempotency-Key', key);
    return call.send(body as object);
  };
  const modify = (id: number, email: string) => ({ created: [], modified: [{ id, email }], deleted: [] });

  it('adds a compact record, not the answer, per keyed push on a 1,500-passenger list whose documents all expire before departure', async () => {
    const flightId = await newFlight();
    // Every document expires before departure, so every answer carries 1,500 warnings (238 kB).
    const created = Array.from({ length: 1500 }, (_, index) => passengerRecord(index + 1, { scadenza: '2026-12-10', surname: `Bianchi ${String.fromCharCode(65 + (index % 26))}` }));
    const first = await push(flightId, { created, modified: [], deleted: [] }, 'bulk-load').expect(200);
    expect(first.body.warnings).toHaveLength(1500);
    const baseline = await storedSize(flightId);

    const answers: Record<string, unknown>[] = [];
    for (let index = 1; index <= 20; index += 1) {
      const response = await push(flightId, modify(index, `p${index}@example.com`), `edit-${index}`).expect(200);
      expect(response.body.warnings).toHaveLength(1500);
      answers.push(response.body);
    }
    expect(await storedSize(flightId)).toBeLessThan(baseline + 20 * BYTES_PER_KEYED_PUSH);

    // The latest key replays its answer exactly; the list is still at the version it produced.
    const latest = await push(flightId, modify(20, 'p20@example.com'), 'edit-20').expect(200);
    expect(latest.body).toEqual(answers[19]);
    expect(latest.headers.etag).toBe(`"${answers[19].version}"`);
    // An older key still replays its version and counts, and writes nothing.
    const older = await push(flightId, modify(1, 'p1@example.com'), 'edit-1').expect(200);
    expect(older.body).toMatchObject({ status: 'ok', flight_id: flightId, version: answers[0].version, created: 0, modified: 1, deleted: 0, passengers: 1500 });
    expect(older.headers.etag).toBe(`"${answers[0].version}"`);
    const bulk = await push(flightId, { created, modified: [], deleted: [] }, 'bulk-load').expect(200);
    expect(bulk.body).toMatchObject({ version: 1, created: 1500, passengers: 1500 });
    expect((await lists().findOne({ flightId }))!.version).toBe(21);
    // Another body under a used key is still refused.
    await push(flightId, modify(2, 'other@example.com'), 'edit-1').expect(409);
  }, HEAVY_TEST_TIMEOUT_MS);

  it('refuses with 422 a push that would take a list over PASSENGER_LIST_MAX_PASSENGERS, naming the first record that does not fit', async () => {
    const flightId = await newFlight();
    await push(flightId, { created: Array.from({ length: 1598 }, (_, index) => passengerRecord(index + 1)), modified: [], deleted: [] }).expect(200);
    const response = await push(flightId, { created: [1, 1599, 1600, 1601, 1602].map((id) => passengerRecord(id)), modified: [], deleted: [] }).expect(422);
    expect(response.body.error.details).toEqual([expect.objectContaining({ group: 'created', index: 3, id: 1601, field: 'id' })]);
    expect(response.body.error.details[0].message).toContain('limit of 1600');
    expect((await lists().findOne({ flightId }))!.passengerCount).toBe(1598);
    // Up to the limit is fine, and so is changing a full list.
    await push(flightId, { created: [1599, 1600].map((id) => passengerRecord(id)), modified: [], deleted: [] }).expect(200);
    await push(flightId, { created: [], modified: [{ id: 7, name: 'Giulia', gender: 'F' }], deleted: [8] }).expect(200);
  });

  it('keeps at most 1,000 idempotency records, forgetting the oldest key first and still replaying the others', async () => {
    const flightId = await newFlight();
    const kept = await push(flightId, { created: [passengerRecord(1)], modified: [], deleted: [] }, 'kept-key').expect(200);
    const hour = 3600 * 1000;
    const filler = Array.from({ length: 999 }, (_, index) => ({
      key: `${'k'.repeat(190)}-${index}`, hash: 'f'.repeat(64), at: new Date(Date.now() - 2 * hour + index), version: 1, created: 0, modified: 0, deleted: 0, passengers: 1, departureDay: '2026-12-20',
    }));
    const [own] = (await lists().findOne({ flightId }))!.requests;
    await lists().updateOne({ flightId }, { $set: { requests: [...filler, own] } });

    await push(flightId, { created: [passengerRecord(2)], modified: [], deleted: [] }, 'newest-key').expect(200);
    const keys: string[] = (await lists().findOne({ flightId }))!.requests.map((record: { key: string }) => record.key);
    expect(keys).toHaveLength(1000);
    expect(keys).not.toContain(filler[0].key);
    expect(keys.slice(-2)).toEqual(['kept-key', 'newest-key']);
    expect(await storedSize(flightId)).toBeLessThan(1000 * 400);
    const again = await push(flightId, { created: [passengerRecord(1)], modified: [], deleted: [] }, 'kept-key').expect(200);
    expect(again.body).toMatchObject({ version: kept.body.version, created: 1 });
  });

  it('caps the audit history at the newest 1,000 pushes', async () => {
    const flightId = await newFlight();
    await push(flightId, { created: [passengerRecord(1)], modified: [], deleted: [] }).expect(200);
    const old = Array.from({ length: 1000 }, (_, index) => ({ version: -index, at: new Date(), subject: 'old', tokenId: null, idempotencyKey: null, created: 0, modified: 0, deleted: 0, passengers: 1 }));
    await lists().updateOne({ flightId }, { $set: { history: old } });
    await push(flightId, { created: [passengerRecord(2)], modified: [], deleted: [] }).expect(200);
    const history = (await testApp.graphql(PassengerListHistoryDocument, { flightId })).body.data!.passengerListHistory;
    expect(history).toHaveLength(1000);
    expect(history[0]).toMatchObject({ version: 2, subject: 'ops-desk', created: 1 });
  });

  it('replays an answer stored whole by an older release, then stores that record compact', async () => {
    const flightId = await newFlight();
    const body = { created: [passengerRecord(1, { scadenza: '2026-12-10' })], modified: [], deleted: [] };
    const first = await push(flightId, body, 'legacy-key').expect(200);
    const [record] = (await lists().findOne({ flightId }))!.requests;
    // The shape older releases wrote: the whole answer, here padded as a 1,500-warning answer would be.
    const padding = Array.from({ length: 1500 }, (_, index) => ({ code: 'DOCUMENT_EXPIRES_BEFORE_DEPARTURE', id: index, message: 'x'.repeat(150) }));
    const legacyAnswer = { ...first.body, warnings: padding };
    await lists().updateOne({ flightId }, { $set: { requests: [{ key: record.key, hash: record.hash, at: record.at, response: legacyAnswer }] } });

    const replayed = await push(flightId, body, 'legacy-key').expect(200);
    expect(replayed.body).toEqual(legacyAnswer);
    await push(flightId, { created: [passengerRecord(2)], modified: [], deleted: [] }, 'next-key').expect(200);
    const stored = (await lists().findOne({ flightId }))!.requests;
    expect(stored[0]).toEqual({ key: 'legacy-key', hash: record.hash, at: record.at, version: 1, created: 1, modified: 0, deleted: 0, passengers: 1, departureDay: '2026-12-20' });
    expect(await storedSize(flightId)).toBeLessThan(4096);
    const rebuilt = await push(flightId, body, 'legacy-key').expect(200);
    expect(rebuilt.body).toMatchObject({ version: 1, created: 1, passengers: 1 });
  });
});
