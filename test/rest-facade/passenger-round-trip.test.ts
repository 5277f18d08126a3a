import request from 'supertest';
import { PassengerListDocument } from '../../src/graphql/generated/operations';
import { buildPassengerWorkbook, passenger } from '../helpers/passenger-workbook';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

describe('a passenger list round trip, as a client does it', () => {
  let testApp: TestApp;
  let writer: string;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_round_trip');
    writer = `Bearer ${await testApp.token(['passengers:write', 'passengers:read', 'timeline:read'])}`;
    await createReferenceData(testApp);
  });
  afterAll(() => testApp.close());

  it('uploads a sheet, pushes the records, reads them, modifies two, deletes one, reads again', async () => {
    const flightId = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-15T08:00:00Z', arrivalAt: '2026-12-15T11:00:00Z' });
    const sheet = await buildPassengerWorkbook([
      passenger({ surname: 'Costa', name: 'Elena', gender: 'F', is_carring_infant: 'yes', numberdoc: 'YA0000001' }),
      passenger({ surname: 'Costa', name: 'Pietro', numberdoc: 'YA0000002' }),
      passenger({ surname: 'Costa', name: 'Nina', gender: 'F', date_born: '2026-01-10', row_number_parent_id: 1, numberdoc: 'YA0000003' }),
      passenger({ surname: 'Ferri', name: 'Marco', numberdoc: 'YA0000004', email: null }),
    ]);
    const preview = await request(testApp.app).post(`/api/broker/v0/upload/${flightId}`).set('Authorization', writer).attach('paxlist', sheet, 'paxlist.xlsx').expect(200);

    // The client assigns its own ids and pushes the preview as `created`.
    const created = preview.body.map((record: Record<string, unknown>, index: number) => ({ ...record, id: 101 + index }));
    const pushed = await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).send({ created, modified: [], deleted: [] }).expect(200);
    expect(pushed.body).toMatchObject({ status: 'ok', version: 1, created: 4, passengers: 4, warnings: [] });

    const read = async () => (await testApp.graphql(PassengerListDocument, { flightId })).body.data!.passengerList;
    const first = await read();
    expect(first.passengers.map((p) => [p.id, p.name, p.parent_id, p.row_number])).toEqual([
      [101, 'ELENA', null, 1],
      [102, 'PIETRO', null, 2],
      [103, 'NINA', 101, 3],
      [104, 'MARCO', null, 4],
    ]);

    await request(testApp.app)
      .post(`/api/broker/v0/flight/${flightId}/passenger`)
      .set('Authorization', writer)
      .set('If-Match', pushed.headers.etag)
      .send({ created: [], modified: [{ id: 102, phone: '+44 20 7946 0958' }, { id: 104, email: 'marco.ferri@example.com', name: 'Marco Antonio' }], deleted: [] })
      .expect(200);
    const removed = await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).send({ created: [], modified: [], deleted: [{ id: 102 }] }).expect(200);
    expect(removed.body).toMatchObject({ version: 3, deleted: 1, passengers: 3 });

    const last = await read();
    expect(last.version).toBe(3);
    expect(last.passengers.map((p) => [p.id, p.name, p.email])).toEqual([
      [101, 'ELENA', 'mario.rossi@example.com'],
      [103, 'NINA', 'mario.rossi@example.com'],
      [104, 'MARCO ANTONIO', 'marco.ferri@example.com'],
    ]);
    const timeline = await request(testApp.app).get('/api/broker/v0/resource/timeline/event?start=2026-12-15&end=2026-12-15').set('Authorization', writer).expect(200);
    expect(timeline.body.find((entry: { flight_id: number }) => entry.flight_id === flightId).passengers).toBe(3);
  });
});
