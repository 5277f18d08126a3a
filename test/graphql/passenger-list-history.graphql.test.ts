import request from 'supertest';
import { mintToken } from '../../src/auth';
import { DeleteFlightDocument, PassengerListDocument, PassengerListHistoryDocument, PushPassengerListDocument } from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

describe('GraphQL passenger list history: what each push changed', () => {
  let testApp: TestApp;
  let auditorToken: string;

  beforeAll(async () => {
    testApp = await startTestApp('graphql_passenger_audit');
    await createReferenceData(testApp);
    auditorToken = await testApp.token(['passengers:read'], 'auditor');
  });
  afterAll(() => testApp.close());

  const newFlight = (day = '2026-11-03') => createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: `${day}T09:00:00Z`, arrivalAt: `${day}T12:00:00Z` });
  const changes = (created: Record<string, unknown>[], modified: Record<string, unknown>[] = [], deleted: number[] = []) => ({ created, modified, deleted }) as never;
  const push = async (flightId: number, body: ReturnType<typeof changes>, token?: string, idempotencyKey: string | null = null) => {
    const { status, body: result } = await testApp.graphql(PushPassengerListDocument, { flightId, changes: body, expectedVersion: null, expectedVersions: null, idempotencyKey }, token);
    if (status !== 200) throw new Error(JSON.stringify(result.errors));
    return result.data!.pushPassengerList;
  };
  const history = async (flightId: number) => {
    const { status, body } = await testApp.graphql(PassengerListHistoryDocument, { flightId }, auditorToken);
    expect(status).toBe(200);
    return body.data!.passengerListHistory;
  };

  it('records who and when, the created ids, only the fields that really changed, and the deleted record’s last values', async () => {
    const flightId = await newFlight();
    await push(flightId, changes([passengerRecord(1), passengerRecord(2, { name: 'Anna', gender: 'F', email: 'anna@example.com' })]));
    const desk = await mintToken(testApp.config.auth, { sub: 'ops-desk', scope: ['passengers:write'], ttlSeconds: 600, jti: 'token-7' });
    const before = Date.now();
    // Record 1: email and phone change; surname and nationality are sent with the values already stored.
    const result = await push(
      flightId,
      changes([passengerRecord(3, { name: 'Luca' })], [{ id: 1, email: 'Mario.Rossi@Example.com', phone: '+39 333 123 4567', surname: 'rossi', nazionalita: 'ITA' }], [2]),
      desk,
      'audit-key-1',
    );
    expect(result).toMatchObject({ version: 2, created: 1, modified: 1, deleted: 1, passengers: 2 });

    const [latest, first] = await history(flightId);
    expect(latest).toMatchObject({ version: 2, subject: 'ops-desk', tokenId: 'token-7', idempotencyKey: 'audit-key-1', created: 1, modified: 1, deleted: 1, passengers: 2 });
    expect(new Date(latest.at).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(new Date(latest.at).getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect(latest.detailDropped).toBe(false);
    expect(latest.createdIds).toEqual([3]);
    expect(latest.modifications).toEqual([
      {
        recordId: 1,
        changes: [
          { field: 'email', before: null, after: 'Mario.Rossi@example.com' },
          { field: 'phone', before: null, after: '+393331234567' },
        ],
      },
    ]);
    expect(latest.deletedRecords).toEqual([
      {
        recordId: 2, surname: 'ROSSI', name: 'ANNA', luogonascita: 'IT', nazionalita: 'IT', typedoc: 'P', numberdoc: 'YA1000002', date_born: '1980-05-01',
        scadenza: '2031-01-01', issuingstate: 'IT', email: 'anna@example.com', phone: null, is_carring_infant: false, gender: 'F', parent_id: null,
      },
    ]);
    expect(first).toMatchObject({ version: 1, subject: 'tester', detailDropped: false, createdIds: [1, 2], modifications: [], deletedRecords: [] });
  });

  it('shows booleans and parent links as text, and adds no entry for a record sent back in `modified` as stored', async () => {
    const flightId = await newFlight();
    await push(flightId, changes([passengerRecord(1), passengerRecord(2, { date_born: '2025-06-01', name: 'Bimba', gender: 'F' })]));
    await push(flightId, changes([], [{ id: 1, is_carring_infant: true }, { id: 2, parent_id: 1 }]));
    expect(await push(flightId, changes([], [{ id: 1, name: 'mario' }]))).toMatchObject({ version: 2, modified: 0 });
    const entries = await history(flightId);
    expect(entries.map((entry) => entry.version)).toEqual([2, 1]);
    expect(entries[0].modifications).toEqual([
      { recordId: 1, changes: [{ field: 'is_carring_infant', before: 'false', after: 'true' }] },
      { recordId: 2, changes: [{ field: 'parent_id', before: null, after: '1' }] },
    ]);
  });

  it('records a record deleted and created again by one push as a replacement, and keeps the new one on the list', async () => {
    const flightId = await newFlight();
    await push(flightId, changes([passengerRecord(1), passengerRecord(2)]));
    await push(flightId, changes([passengerRecord(1, { name: 'Giulia', gender: 'F' })], [], [1]));
    const list = (await testApp.graphql(PassengerListDocument, { flightId })).body.data!.passengerList;
    expect(list.passengers.map((passenger) => [passenger.id, passenger.name, passenger.row_number])).toEqual([[1, 'GIULIA', 1], [2, 'MARIO', 2]]);
    const [replaced] = await history(flightId);
    expect(replaced).toMatchObject({ created: 1, deleted: 1, passengers: 2, createdIds: [1], deletedRecords: [expect.objectContaining({ recordId: 1, name: 'MARIO', gender: 'M' })] });
  });

  it('adds no entry for a replayed idempotent retry, nor for a retry that changes nothing', async () => {
    const flightId = await newFlight();
    const body = changes([passengerRecord(1)], [], []);
    await push(flightId, body, undefined, 'retry-key');
    const replay = await push(flightId, body, undefined, 'retry-key');
    expect(replay).toMatchObject({ version: 1, created: 1 });
    const unkeyedRetry = await push(flightId, body);
    expect(unkeyedRetry).toMatchObject({ version: 1, created: 0 });
    expect((await history(flightId)).map((entry) => [entry.version, entry.createdIds])).toEqual([[1, [1]]]);
  });

  it('keeps the history behind passengers:read', async () => {
    const flightId = await newFlight();
    const refused = await testApp.graphql(PassengerListHistoryDocument, { flightId }, await testApp.token(['timeline:read']));
    expect(refused.status).toBe(403);
    expect(refused.body.errors![0].extensions!.code).toBe('FORBIDDEN');
  });

  it('erases the history with the flight: deleteFlight leaves no entry, no detail and no passenger value in the database', async () => {
    const flightId = await newFlight('2026-11-04');
    await push(flightId, changes([passengerRecord(1, { surname: 'Esposito', email: 'gennaro@example.com' }), passengerRecord(2, { surname: 'Esposito' })]));
    await push(flightId, changes([], [{ id: 1, phone: '+39 333 765 4321' }], [2]));
    // The REST push writes history as well.
    const rest = await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', `Bearer ${await testApp.token()}`)
      .send({ created: [passengerRecord(3, { surname: 'Esposito' })], modified: [], deleted: [] });
    expect(rest.status).toBe(200);
    expect((await history(flightId)).map((entry) => entry.version)).toEqual([3, 2, 1]);
    const lists = testApp.database.connection.db!.collection('passenger_lists');
    expect(JSON.stringify(await lists.findOne({ flightId }))).toContain('ESPOSITO');

    expect((await testApp.graphql(DeleteFlightDocument, { id: flightId })).body.data).toEqual({ deleteFlight: true });

    const after = await testApp.graphql(PassengerListHistoryDocument, { flightId }, auditorToken);
    expect(after.status).toBe(404);
    expect(after.body.errors![0].extensions!.code).toBe('NOT_FOUND');
    const stored = await lists.findOne({ flightId });
    expect(stored).toMatchObject({ flightId, history: [], passengers: [] });
    expect(stored!.historyDetails ?? []).toEqual([]);
    const text = JSON.stringify(stored);
    for (const personal of ['ESPOSITO', 'gennaro', '+393337654321', 'YA100000']) expect(text).not.toContain(personal);
  });
});
