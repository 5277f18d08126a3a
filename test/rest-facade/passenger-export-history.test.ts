import request from 'supertest';
import { PassengerListDocument, PassengerListExportsDocument, PassengerListHistoryDocument } from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/** The bound of a list's export history (docs/rest-api.md, "Passenger list exports": the most recent 1,000). */
const KEPT = 1000;

describe('the export history’s bound', () => {
  let testApp: TestApp;
  let flightId: number;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_export_history');
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-15T08:00:00Z', arrivalAt: '2026-12-15T11:00:00Z' });
    const writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).send({ created: [passengerRecord(1)], modified: [], deleted: [] }).expect(200);
  });
  afterAll(() => testApp.close());

  const exportAs = async (subject: string, format = 'csv') => {
    const token = await testApp.token(['passengers:read'], subject);
    await request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger?format=${format}`).set('Authorization', `Bearer ${token}`).expect(200);
  };

  it('keeps the newest 1,000 exports, newest first, and drops the oldest beyond them', async () => {
    const history = (await testApp.graphql(PassengerListHistoryDocument, { flightId })).body.data!.passengerListHistory;
    // Three named exports first, one after the other, then enough to push exactly two of them out.
    for (const subject of ['first-1', 'first-2', 'first-3']) await exportAs(subject);
    const bulk = KEPT + 2 - 3 - 3;
    for (let sent = 0; sent < bulk; sent += 40) {
      await Promise.all(Array.from({ length: Math.min(40, bulk - sent) }, (_, index) => exportAs('bulk', (sent + index) % 10 ? 'csv' : 'xlsx')));
    }
    for (const subject of ['last-1', 'last-2', 'last-3']) await exportAs(subject);

    const { body } = await testApp.graphql(PassengerListExportsDocument, { flightId });
    expect(body.errors).toBeUndefined();
    const exports = body.data!.passengerListExports;
    expect(exports).toHaveLength(KEPT);
    expect(exports.slice(0, 3).map((entry) => entry.subject)).toEqual(['last-3', 'last-2', 'last-1']);
    // first-1 and first-2 (the two oldest) are gone; first-3 is the oldest kept.
    expect(exports[KEPT - 1].subject).toBe('first-3');
    expect(exports.filter((entry) => entry.subject.startsWith('first-')).map((entry) => entry.subject)).toEqual(['first-3']);
    expect(exports.filter((entry) => entry.subject === 'bulk')).toHaveLength(bulk);
    expect(new Set(exports.map((entry) => entry.format))).toEqual(new Set(['csv', 'xlsx']));
    expect(exports.every((entry) => entry.version === 1)).toBe(true);
    // Newest first by time, also among exports made at once (they may reach the database in another order).
    const times = exports.map((entry) => Date.parse(entry.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    // A thousand exports changed nothing else of the list.
    expect((await testApp.graphql(PassengerListHistoryDocument, { flightId })).body.data!.passengerListHistory).toEqual(history);
    const list = (await testApp.graphql(PassengerListDocument, { flightId })).body.data!.passengerList;
    expect(list.version).toBe(1);
    expect(list.passengers).toHaveLength(1);

    // One more: still 1,000, first-3 gone.
    await exportAs('last-4');
    const after = (await testApp.graphql(PassengerListExportsDocument, { flightId })).body.data!.passengerListExports;
    expect(after).toHaveLength(KEPT);
    expect(after[0].subject).toBe('last-4');
    expect(after.some((entry) => entry.subject.startsWith('first-'))).toBe(false);
  }, 180_000);
});
