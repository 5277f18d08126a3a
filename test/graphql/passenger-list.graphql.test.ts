import {
  DeleteFlightDocument,
  FlightsWithPassengersDocument,
  PassengerListDocument,
  PassengerListHistoryDocument,
  PushPassengerListDocument,
} from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

describe('GraphQL passenger lists', () => {
  let testApp: TestApp;
  let flightId: number;

  beforeAll(async () => {
    testApp = await startTestApp('graphql_passengers');
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LGAV', departureAt: '2026-12-01T08:00:00Z', arrivalAt: '2026-12-01T12:00:00Z' });
  });
  afterAll(() => testApp.close());

  const changes = (created: Record<string, unknown>[], modified: Record<string, unknown>[] = [], deleted: number[] = []) => ({ created, modified, deleted }) as never;

  it('shows an empty list at version 0 for a flight without one', async () => {
    const { body } = await testApp.graphql(PassengerListDocument, { flightId });
    expect(body.data!.passengerList).toEqual({ flightId, version: 0, passengers: [] });
  });

  it('pushes, pins versions with expectedVersion, and records the history newest first', async () => {
    const first = await testApp.graphql(PushPassengerListDocument, { flightId, changes: changes([passengerRecord(1), passengerRecord(2)]), expectedVersion: 0, expectedVersions: null, idempotencyKey: null });
    expect(first.body.data!.pushPassengerList).toMatchObject({ status: 'ok', version: 1, created: 2, passengers: 2 });

    const stale = await testApp.graphql(PushPassengerListDocument, { flightId, changes: changes([], [], [2]), expectedVersion: 0, expectedVersions: null, idempotencyKey: null });
    expect(stale.status).toBe(412);
    expect(stale.body.errors![0].extensions!.code).toBe('PRECONDITION_FAILED');

    const second = await testApp.graphql(PushPassengerListDocument, { flightId, changes: changes([], [{ id: 1, name: 'Paolo' }], [2]), expectedVersion: 1, expectedVersions: null, idempotencyKey: 'gql-1' });
    expect(second.body.data!.pushPassengerList).toMatchObject({ version: 2, modified: 1, deleted: 1, passengers: 1 });

    const history = await testApp.graphql(PassengerListHistoryDocument, { flightId });
    expect(history.body.data!.passengerListHistory.map((entry) => [entry.version, entry.subject, entry.idempotencyKey, entry.created, entry.modified, entry.deleted])).toEqual([
      [2, 'tester', 'gql-1', 0, 1, 1],
      [1, 'tester', null, 2, 0, 0],
    ]);
    expect(new Date(history.body.data!.passengerListHistory[0].at).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('answers invalid records with 422 and the details of each', async () => {
    const { status, body } = await testApp.graphql(PushPassengerListDocument, { flightId, changes: changes([passengerRecord(5, { typedoc: 'driving licence' })]), expectedVersion: null, expectedVersions: null, idempotencyKey: null });
    expect(status).toBe(422);
    expect(body.errors![0].extensions!.code).toBe('UNPROCESSABLE');
    expect(body.errors![0].extensions!.details).toEqual([expect.objectContaining({ group: 'created', index: 0, id: 5, field: 'typedoc' })]);
  });

  it('replays a keyed push with its first version after the list moved on, and refuses every write once the flight is deleted', async () => {
    const doomed = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-12-02T15:00:00Z', arrivalAt: '2026-12-02T16:00:00Z' });
    const keyed = { flightId: doomed, changes: changes([passengerRecord(1)]), expectedVersion: null, expectedVersions: null, idempotencyKey: 'gql-doomed' };
    const first = await testApp.graphql(PushPassengerListDocument, keyed);
    await testApp.graphql(PushPassengerListDocument, { flightId: doomed, changes: changes([passengerRecord(2)]), expectedVersion: null, expectedVersions: null, idempotencyKey: null });
    const replayed = await testApp.graphql(PushPassengerListDocument, keyed);
    expect(replayed.body.data!.pushPassengerList).toMatchObject({ version: 1, created: 1, passengers: 1 });
    expect(replayed.body.data!.pushPassengerList).toEqual(first.body.data!.pushPassengerList);

    expect((await testApp.graphql(DeleteFlightDocument, { id: doomed })).body.data).toEqual({ deleteFlight: true });
    for (const variables of [keyed, { ...keyed, idempotencyKey: 'gql-after' }, { ...keyed, idempotencyKey: null }]) {
      const refused = await testApp.graphql(PushPassengerListDocument, variables);
      expect(refused.status).toBe(404);
      expect(refused.body.errors![0].extensions!.code).toBe('NOT_FOUND');
    }
    const lists = testApp.database.connection.db!.collection('passenger_lists');
    expect(await lists.countDocuments({ flightId: doomed, 'passengers.0': { $exists: true } })).toBe(0);
  });

  it('resolves Flight.passengers for many flights in one query, behind passengers:read', async () => {
    const other = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-12-01T15:00:00Z', arrivalAt: '2026-12-01T16:00:00Z' });
    await testApp.graphql(PushPassengerListDocument, { flightId: other, changes: changes([passengerRecord(7), passengerRecord(8)]), expectedVersion: null, expectedVersions: null, idempotencyKey: null });
    const { body } = await testApp.graphql(FlightsWithPassengersDocument, { start: '2026-12-01', end: '2026-12-01' });
    expect(body.data!.flights.map((flight) => [flight.flightId, flight.passengerCount, flight.passengers.map((p) => [p.id, p.recordId, p.row_number])])).toEqual([
      [flightId, 1, [[`${flightId}:1`, 1, 1]]],
      [other, 2, [[`${other}:7`, 7, 1], [`${other}:8`, 8, 2]]],
    ]);
    const timelineOnly = await testApp.token(['timeline:read']);
    const refused = await testApp.graphql(FlightsWithPassengersDocument, { start: '2026-12-01', end: '2026-12-01' }, timelineOnly);
    expect(refused.status).toBe(403);
    expect(refused.body.errors![0].extensions!.code).toBe('FORBIDDEN');
  });
});
