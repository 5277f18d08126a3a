import { calculateObjectSize } from 'bson';
import request from 'supertest';
import { PassengerListHistoryDocument } from '../../src/graphql/generated/operations';
import { PASSENGER_LIST_HISTORY_DETAIL_BYTES } from '../../src/passengers/passenger-list.audit';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/** Builds and rewrites a 2,000-record list many times; minutes on a two-core machine at load 30 and more (a liveness bound, not a speed check). */
const HEAVY_TEST_TIMEOUT_MS = 600_000;

const LIST_SIZE = 2000;
const PER_PUSH = 400;

/** A 100-letter name of three-byte characters (the longest names take the most bytes), one per variant. */
const longName = (variant: number) => String.fromCharCode(0x4e00 + variant).repeat(100);

describe('the audit detail of a passenger list’s history stays within its byte budget', () => {
  let testApp: TestApp;
  let writer: string;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_audit_bounds', { PASSENGER_LIST_MAX_PASSENGERS: String(LIST_SIZE), JSON_MAX_BYTES: String(16 * 1024 * 1024) });
    writer = `Bearer ${await testApp.token(['passengers:write', 'passengers:read'], 'bulk-loader')}`;
    await createReferenceData(testApp);
  });
  afterAll(() => testApp.close());

  const lists = () => testApp.database.connection.db!.collection('passenger_lists');
  const push = (flightId: number, body: unknown) =>
    request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).send(body as object).expect(200);
  const email = (id: number, variant: number) => `${'p'.repeat(50)}${variant}.${id}@${'d'.repeat(60)}.example.com`;
  /** Changes three long fields of records `from`..`to` (about 1.5 kB of detail a record). */
  const rename = (from: number, to: number, variant: number) => ({
    created: [],
    modified: Array.from({ length: to - from + 1 }, (_, index) => ({ id: from + index, surname: longName(variant), name: longName(variant + 1), email: email(from + index, variant) })),
    deleted: [],
  });

  it('keeps the detail of the newest pushes that fit, reduces older ones to counts, and drops the detail of a push too large on its own', async () => {
    const flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: '2026-12-21T09:00:00Z', arrivalAt: '2026-12-21T12:00:00Z' });
    const created = Array.from({ length: LIST_SIZE }, (_, index) => passengerRecord(index + 1, { surname: longName(0), name: longName(1), email: email(index + 1, 0) }));
    await push(flightId, { created, modified: [], deleted: [] });
    // Five pushes of about 0.6 MB of detail each: only the newest few fit in the budget.
    for (let round = 1; round <= 5; round += 1) await push(flightId, rename(1 + (round - 1) * PER_PUSH, round * PER_PUSH, 2 * round));

    const stored = (await lists().findOne({ flightId }))!;
    const sizes: number[] = stored.historyDetails.map((detail: object) => calculateObjectSize(detail));
    // Each detail's recorded size is what the database holds.
    expect(stored.historyDetails.map((detail: { bytes: number }) => detail.bytes)).toEqual(sizes);
    const total = sizes.reduce((sum, size) => sum + size, 0);
    expect(total).toBeLessThanOrEqual(PASSENGER_LIST_HISTORY_DETAIL_BYTES);
    expect(sizes.length).toBeGreaterThanOrEqual(2);
    expect(sizes.length).toBeLessThan(6);
    // Newest first: the newest details are kept, and the next older one would not have fitted.
    expect(stored.historyDetails.map((detail: { version: number }) => detail.version)).toEqual(Array.from({ length: sizes.length }, (_, index) => 7 - sizes.length + index));

    let history = (await testApp.graphql(PassengerListHistoryDocument, { flightId })).body.data!.passengerListHistory;
    expect(history.map((entry) => entry.version)).toEqual([6, 5, 4, 3, 2, 1]);
    expect(history.map((entry) => entry.detailDropped)).toEqual(history.map((_, index) => index >= sizes.length));
    const dropped = history[sizes.length];
    expect(dropped).toMatchObject({ subject: 'bulk-loader', modified: PER_PUSH, createdIds: null, modifications: null, deletedRecords: null });
    expect(history[0].modifications).toHaveLength(PER_PUSH);
    expect(history[0].modifications![0]).toEqual({
      recordId: 4 * PER_PUSH + 1,
      changes: [
        { field: 'surname', before: longName(0), after: longName(10) },
        { field: 'name', before: longName(1), after: longName(11) },
        { field: 'email', before: email(4 * PER_PUSH + 1, 0), after: email(4 * PER_PUSH + 1, 10) },
      ],
    });

    // One push renaming everyone (about 3 MB of detail) keeps its counts only; the details before it stay.
    await push(flightId, rename(1, LIST_SIZE, 20));
    history = (await testApp.graphql(PassengerListHistoryDocument, { flightId })).body.data!.passengerListHistory;
    expect(history[0]).toMatchObject({ version: 7, modified: LIST_SIZE, detailDropped: true, modifications: null });
    expect(history.slice(1, 1 + sizes.length).every((entry) => !entry.detailDropped)).toBe(true);

    // A small push after it is detailed, and the budget still holds.
    await push(flightId, { created: [], modified: [], deleted: [LIST_SIZE] });
    history = (await testApp.graphql(PassengerListHistoryDocument, { flightId })).body.data!.passengerListHistory;
    expect(history[0]).toMatchObject({ version: 8, detailDropped: false, deletedRecords: [expect.objectContaining({ recordId: LIST_SIZE, surname: longName(20) })] });

    const final = (await lists().findOne({ flightId }))!;
    const detailBytes = final.historyDetails.reduce((sum: number, detail: object) => sum + calculateObjectSize(detail), 0);
    expect(detailBytes).toBeLessThanOrEqual(PASSENGER_LIST_HISTORY_DETAIL_BYTES);
    // The whole document: its passengers and counts, plus at most the budget, far below 16 MiB.
    const withoutDetails = calculateObjectSize({ ...final, historyDetails: [] });
    expect(calculateObjectSize(final)).toBeLessThanOrEqual(withoutDetails + PASSENGER_LIST_HISTORY_DETAIL_BYTES);
    expect(calculateObjectSize(final)).toBeLessThan(10 * 1024 * 1024);
  }, HEAVY_TEST_TIMEOUT_MS);
});
