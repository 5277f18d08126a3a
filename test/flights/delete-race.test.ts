import request from 'supertest';
import { DeleteFlightDocument, PassengerListDocument } from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/** Twelve rounds of sixteen racing pushes and a delete; minutes on a two-core machine at load 30 and more (a liveness bound, not a speed check: benchmarks measure speed). */
const HEAVY_TEST_TIMEOUT_MS = 600_000;

const ROUNDS = 12;
const PUSHES_PER_ROUND = 16;

describe('deleteFlight racing passenger pushes', () => {
  let testApp: TestApp;
  let writer: string;

  beforeAll(async () => {
    testApp = await startTestApp('delete_race');
    writer = `Bearer ${await testApp.token(['passengers:write', 'passengers:read', 'timeline:read'], 'ops-desk')}`;
    await createReferenceData(testApp);
  });
  afterAll(() => testApp.close());

  const push = (flightId: number, id: number, key?: string) => {
    const call = request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer);
    if (key) call.set('Idempotency-Key', key);
    return call.send({ created: [passengerRecord(id)], modified: [], deleted: [] });
  };
  const storedPassengers = async (flightId: number) => {
    const lists = testApp.database.connection.db!.collection('passenger_lists');
    return lists.countDocuments({ flightId, 'passengers.0': { $exists: true } });
  };

  it('leaves no passenger data behind, and every push either landed before the delete or answers 404', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: '2026-12-21T09:00:00Z', arrivalAt: '2026-12-21T12:00:00Z' });
      // Half the pushes start before the delete and half after it, keyed and unkeyed alike.
      // Each a promise of its own (a supertest request runs again each time it is awaited).
      const early = Array.from({ length: PUSHES_PER_ROUND / 2 }, (_, index) => push(flightId, index + 1, index % 2 ? `race-${round}-${index}` : undefined).then((response) => response));
      // The delete is sent later in each round (0 to about 250 ms), so early rounds race it against
      // pushes still arriving and late rounds against pushes mid-write or done. The last round sends
      // it once an early push answered, so some push surely landed first whatever the machine's load.
      const sendAt = round === ROUNDS - 1 ? early[0] : new Promise((resolve) => setTimeout(resolve, round * round * 2));
      const deletion = sendAt.then(() => testApp.graphql(DeleteFlightDocument, { id: flightId }));
      const late = Array.from({ length: PUSHES_PER_ROUND / 2 }, (_, index) => push(flightId, 100 + index, index % 2 ? `late-${round}-${index}` : undefined));
      const [deleted, ...responses] = await Promise.all([deletion, ...early, ...late]);

      expect(deleted.body.data).toEqual({ deleteFlight: true });
      for (const response of responses) {
        expect([200, 404]).toContain(response.status);
        if (response.status === 404) expect(response.body.error.code).toBe('NOT_FOUND');
      }
      outcomes.push(responses.map((response) => response.status).join(','));
      expect(await storedPassengers(flightId)).toBe(0);
      const read = await testApp.graphql(PassengerListDocument, { flightId });
      expect(read.status).toBe(404);

      // After the delete has answered, every push is refused and writes nothing.
      const after = await Promise.all([push(flightId, 500), push(flightId, 501, `after-${round}`)]);
      expect(after.map((response) => response.status)).toEqual([404, 404]);
      expect(await storedPassengers(flightId)).toBe(0);
    }
    // The race was really run: some rounds saw pushes land before the delete.
    expect(outcomes.some((statuses) => statuses.includes('200'))).toBe(true);
  }, HEAVY_TEST_TIMEOUT_MS);
});
