import {
  AirportsDocument,
  CreateFlightDocument,
  DeleteFlightDocument,
  FlightDocument,
  FlightsDocument,
  ResourcesDocument,
  TimelineEventsDocument,
  UpdateFlightDocument,
  UpsertAirportDocument,
  UpsertResourceDocument,
} from '../../src/graphql/generated/operations';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { AIRPORTS, createFlight, createReferenceData } from '../helpers/timeline-fixtures';

const baseFlight = {
  flightNumber: 'IFL200',
  resourceId: 1,
  departureIcao: 'LIRF',
  departureAt: '2026-07-01T07:00:00Z',
  arrivalIcao: 'LGAV',
  arrivalAt: '2026-07-01T09:15:00Z',
  backgroundColor: null,
  textColor: null,
  borderColor: null,
};

const detailFields = (errors: readonly { extensions?: Record<string, unknown> }[] | undefined) =>
  ((errors?.[0]?.extensions?.details as { field: string }[] | undefined) ?? []).map((detail) => detail.field);

describe('GraphQL flights, airports and resources', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp('graphql_flights');
    await createReferenceData(testApp);
  });
  afterAll(() => testApp.close());

  it('creates a flight and reads it back with local times, airports, resource and effective colours', async () => {
    const created = await testApp.graphql(CreateFlightDocument, { input: { ...baseFlight, borderColor: 'Crimson' } });
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data!.createFlight.flightId;
    const { body } = await testApp.graphql(FlightDocument, { id });
    expect(body.data!.flight).toMatchObject({
      id: `Flight:${id}`,
      flightId: id,
      flightNumber: 'IFL200',
      resourceId: 1,
      backgroundColor: 'steelblue',
      textColor: 'white',
      borderColor: 'crimson',
      colours: { background: null, text: null, border: 'crimson' },
      passengerCount: 0,
      departure: { icao: 'LIRF', at: '2026-07-01T07:00:00.000Z', localTime: '2026-07-01 09:00', airport: { iata: 'FCO', timezone: 'Europe/Rome' } },
      arrival: { icao: 'LGAV', localTime: '2026-07-01 12:15', airport: { iata: 'ATH' } },
      resource: { id: 'Resource:1', resourceId: 1, title: 'Citation XLS+' },
    });
  });

  it('gives concurrent creations distinct, increasing ids', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => testApp.graphql(CreateFlightDocument, { input: baseFlight })));
    const ids = results.map((result) => result.body.data!.createFlight.flightId);
    expect(new Set(ids).size).toBe(50);
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
  });

  it('lists flights overlapping a range, optionally for one resource', async () => {
    const other = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-08-02T10:00:00Z', arrivalAt: '2026-08-02T13:00:00Z' });
    const mine = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: '2026-08-02T15:00:00Z', arrivalAt: '2026-08-02T18:00:00Z' });
    const all = await testApp.graphql(FlightsDocument, { start: '2026-08-02', end: '2026-08-02', resourceId: null });
    expect(all.body.data!.flights.map((flight) => flight.flightId)).toEqual([other, mine]);
    const one = await testApp.graphql(FlightsDocument, { start: '2026-08-02', end: '2026-08-02', resourceId: 1 });
    expect(one.body.data!.flights.map((flight) => flight.flightId)).toEqual([mine]);
  });

  it('updates only the given fields and clears a colour override with null', async () => {
    const id = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-09-01T10:00:00Z', arrivalAt: '2026-09-01T11:00:00Z', backgroundColor: 'gold' });
    const moved = await testApp.graphql(UpdateFlightDocument, { id, input: { arrivalIcao: 'LPPT', arrivalAt: '2026-09-01T13:00:00Z', backgroundColor: null } as never });
    expect(moved.body.errors).toBeUndefined();
    expect(moved.body.data!.updateFlight).toMatchObject({ arrival: { icao: 'LPPT', localTime: '2026-09-01 14:00' }, departure: { icao: 'LIRF' }, backgroundColor: 'steelblue', colours: null });
  });

  it('validates an update against the merged flight, and answers 404 for an unknown one', async () => {
    const id = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-09-03T10:00:00Z', arrivalAt: '2026-09-03T11:00:00Z' });
    const backwards = await testApp.graphql(UpdateFlightDocument, { id, input: { departureAt: '2026-09-03T12:00:00Z' } as never });
    expect(backwards.status).toBe(400);
    expect(detailFields(backwards.body.errors)).toEqual(['arrivalAt']);
    const missing = await testApp.graphql(UpdateFlightDocument, { id: 987654, input: { flightNumber: 'IFL999' } as never });
    expect(missing.status).toBe(404);
  });

  it('deletes a flight together with its passenger list', async () => {
    const id = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-09-02T10:00:00Z', arrivalAt: '2026-09-02T11:00:00Z' });
    const lists = testApp.database.connection.db!.collection('passenger_lists');
    await lists.insertOne({ flightId: id, version: 1, passengerCount: 1, passengers: [{ id: 1 }], history: [] });
    const deleted = await testApp.graphql(DeleteFlightDocument, { id });
    expect(deleted.body.data).toEqual({ deleteFlight: true });
    // What remains is the tombstone that keeps racing pushes from re-creating the list: no passenger data.
    expect(await lists.find({ flightId: id }, { projection: { _id: 0, passengers: 1, passengerCount: 1, history: 1, requests: 1 } }).toArray()).toEqual([{ passengers: [], passengerCount: 0, history: [], requests: [] }]);
    expect((await testApp.graphql(FlightDocument, { id })).body.data!.flight).toBeNull();
    const again = await testApp.graphql(DeleteFlightDocument, { id });
    expect(again.status).toBe(404);
    expect(again.body.errors![0].extensions!.code).toBe('NOT_FOUND');
  });

  it.each([
    ['unknown airports', { departureIcao: 'ZZZZ', arrivalIcao: 'YYYY' }, ['departureIcao', 'arrivalIcao']],
    ['an unknown resource', { resourceId: 99 }, ['resourceId']],
    ['arrival before departure', { arrivalAt: '2026-07-01T06:00:00Z' }, ['arrivalAt']],
    ['a flight longer than 24 hours', { arrivalAt: '2026-07-03T06:00:00Z' }, ['arrivalAt']],
    ['a malformed ICAO code', { departureIcao: 'FCO' }, ['departureIcao']],
    ['a colour that is not a CSS name', { textColor: 'blurple', backgroundColor: '#fff' }, ['backgroundColor', 'textColor']],
  ])('rejects %s with 400 and a detail per field', async (_case, change, fields) => {
    const before = await testApp.database.connection.db!.collection('flights').countDocuments();
    const { status, body } = await testApp.graphql(CreateFlightDocument, { input: { ...baseFlight, ...change } });
    expect(status).toBe(400);
    expect(body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');
    expect(detailFields(body.errors)).toEqual(fields);
    expect(await testApp.database.connection.db!.collection('flights').countDocuments()).toBe(before);
  });

  it('rejects a date-time without an offset before any resolver runs', async () => {
    const { status, body } = await testApp.graphql(CreateFlightDocument, { input: { ...baseFlight, departureAt: 'tomorrow' } });
    expect(status).toBe(400);
    expect(body.errors![0].message).toContain('departureAt');
  });

  it('upserts airports with validation of codes and time zone', async () => {
    const renamed = await testApp.graphql(UpsertAirportDocument, { input: { ...AIRPORTS.LIRF, city: 'Roma' } });
    expect(renamed.body.data!.upsertAirport.city).toBe('Roma');
    const bad = await testApp.graphql(UpsertAirportDocument, { input: { icao: 'LIR', iata: 'FC', city: 'x', country: 'Italy', countryTag: 'IT', timezone: 'Mars/Olympus' } });
    expect(bad.status).toBe(400);
    expect(detailFields(bad.body.errors)).toEqual(['icao', 'iata', 'timezone']);
    const search = await testApp.graphql(AirportsDocument, { search: 'lis' });
    expect(search.body.data!.airports.map((airport) => airport.icao)).toEqual(['LPPT']);
  });

  it('creates resources with the next id and replaces one by id', async () => {
    const created = await testApp.graphql(UpsertResourceDocument, { input: { id: null, title: 'Falcon 2000', registration: 'hb-jfn', backgroundColor: 'slateblue', textColor: 'white', borderColor: 'darkslateblue' } });
    expect(created.body.data!.upsertResource).toMatchObject({ id: 'Resource:3', resourceId: 3, registration: 'HB-JFN' });
    await testApp.graphql(UpsertResourceDocument, { input: { id: 3, title: 'Falcon 2000LXS', registration: 'HB-JFN', backgroundColor: 'slateblue', textColor: 'white', borderColor: 'navy' } });
    const { body } = await testApp.graphql(ResourcesDocument, {});
    expect(body.data!.resources.map((resource) => [resource.resourceId, resource.title])).toEqual([[1, 'Citation XLS+'], [2, 'Phenom 300E'], [3, 'Falcon 2000LXS']]);
    const bad = await testApp.graphql(UpsertResourceDocument, { input: { id: null, title: ' ', registration: 'I-ABCD', backgroundColor: 'rgb(1,2,3)', textColor: 'white', borderColor: 'navy' } });
    expect(bad.status).toBe(400);
    expect(detailFields(bad.body.errors)).toEqual(['title', 'backgroundColor']);
  });

  it('answers timelineEvents with the same entries as the REST route, in GraphQL naming', async () => {
    const { body } = await testApp.graphql(TimelineEventsDocument, { view: 'CALENDAR', start: '2026-08-02', end: '2026-08-02', timeZone: null });
    expect(body.data!.timelineEvents).toHaveLength(2);
    expect(body.data!.timelineEvents[0]).toMatchObject({ apiVersion: 'v0', url: 'broker.test', dep: { country: 'Portugal (PT)' } });
  });

  it('reports a bad range through GraphQL as BAD_USER_INPUT naming the argument', async () => {
    const { status, body } = await testApp.graphql(TimelineEventsDocument, { view: 'RESOURCE', start: '2026-13-01', end: '2026-08-02', timeZone: null });
    expect(status).toBe(400);
    expect(detailFields(body.errors)).toEqual(['start']);
  });
});

describe('concurrent upserts', () => {
  let other: TestApp;
  beforeAll(async () => {
    other = await startTestApp('graphql_concurrent_upserts');
  });
  afterAll(() => other.close());

  // The airport half races only on a real MongoDB (the embedded engine runs one upsert atomically);
  // the resource half races everywhere: creates draw id 3 from the counter while a client takes it.
  it('survives concurrent upserts of the same new airport and resource ids without a 500', async () => {
    const airport = { icao: 'LEMD', iata: 'MAD', city: 'Madrid', country: 'Spain', countryTag: 'ES', timezone: 'Europe/Madrid' };
    const airports = await Promise.all(Array.from({ length: 20 }, () => other.graphql(UpsertAirportDocument, { input: airport })));
    expect(airports.map((result) => result.status)).toEqual(Array(20).fill(200));
    const resource = (id: number | null) => ({ id, title: 'Learjet 75', registration: 'OE-GLJ', backgroundColor: 'silver', textColor: 'black', borderColor: 'gray' });
    const resources = await Promise.all([
      ...Array.from({ length: 10 }, () => other.graphql(UpsertResourceDocument, { input: resource(3) })),
      ...Array.from({ length: 10 }, () => other.graphql(UpsertResourceDocument, { input: resource(null) })),
    ]);
    expect(resources.map((result) => result.status)).toEqual(Array(20).fill(200));
    const created = resources.slice(10).map((result) => result.body.data!.upsertResource.resourceId);
    expect(new Set(created).size).toBe(10);
    expect(created).not.toContain(3);
    const db = other.database.connection.db!;
    expect(await db.collection('airports').countDocuments({ icao: 'LEMD' })).toBe(1);
    expect(await db.collection('resources').countDocuments({ resourceId: 3 })).toBe(1);
  });
});

describe('compiled queries (graphql-jit) and variable defaults', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp('graphql_jit_defaults');
    await createReferenceData(testApp);
  });
  afterAll(() => testApp.close());

  it('gives a left-out non-null variable its declared default, as graphql-js does, also once the query is compiled', async () => {
    const request = (await import('supertest')).default;
    const token = await testApp.token();
    const query = 'query Defaults($search: String! = "LIR", $withIata: Boolean! = false) { airports(search: $search) { icao iata @include(if: $withIata) } }';
    // The second sighting of a document is the first that runs compiled.
    const answers = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await request(testApp.app).post('/graphql').set('Authorization', `Bearer ${token}`).send({ query });
      answers.push({ status: response.status, body: response.body });
    }
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.errors).toBeUndefined();
      expect(answer.body.data.airports.length).toBeGreaterThan(0);
      for (const airport of answer.body.data.airports) {
        expect(airport.icao).toMatch(/^LIR/);
        expect(airport).not.toHaveProperty('iata');
      }
    }
    expect(answers[2].body).toEqual(answers[0].body);
  });
});
