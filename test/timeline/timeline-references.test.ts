import { MongoClient, type CommandStartedEvent, type CommandSucceededEvent } from 'mongodb';
import request from 'supertest';
import { startEmbeddedMongo, type EmbeddedMongo } from '@broker/embedded-mongo';
import { UpsertAirportDocument } from '../../src/graphql/generated/operations';
import { uniqueDatabaseName } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { AIRPORTS, createReferenceData, insertManyFlights } from '../helpers/timeline-fixtures';

jest.setTimeout(60_000);

/** 31 days × GRAPHQL_COST_FLIGHTS_PER_DAY (20) = 620 estimated entries: large from 300 on. */
const LARGE = '/api/broker/v0/calendar/timeline/event?start=2026-05-01&end=2026-05-31';
/** 1 day × 20 = 20 estimated entries: small. */
const SMALL = '/api/broker/v0/calendar/timeline/event?start=2026-05-10&end=2026-05-10';

interface LegacyEntry {
  flight_id: number;
  backgroundColor: string;
  dep: { icao: string; iata: string; city: string; country: string };
  arr: { icao: string; iata: string; city: string; country: string };
}

/** What a read sent to the database, in order: `started flights`, `succeeded airports`… (aggregates only). */
type Step = `${'started' | 'succeeded'} ${string}`;

describe('the airports and resources of a timeline read', () => {
  let testApp: TestApp;
  let bearer: string;
  const steps: Step[] = [];
  const collectionOf = new Map<number, string>();
  /** How many ICAO codes each airports' command asked for. */
  const asked: number[] = [];

  beforeAll(async () => {
    testApp = await startTestApp('timeline_references', { TIMELINE_LARGE_READ_ENTRIES: '300', OUTBOX_SWEEP_INTERVAL_MS: '3600000' }, { monitorCommands: true });
    await createReferenceData(testApp);
    const client = testApp.database.connection.getClient();
    client.on('commandStarted', (event: CommandStartedEvent) => {
      if (event.commandName !== 'aggregate') return;
      const collection = String(event.command.aggregate);
      if (collection !== 'flights' && collection !== 'airports') return;
      collectionOf.set(event.requestId, collection);
      steps.push(`started ${collection}`);
      if (collection === 'airports') asked.push((event.command.pipeline as Array<{ $match?: { icao?: { $in: string[] } } }>)[0].$match!.icao!.$in.length);
    });
    client.on('commandSucceeded', (event: CommandSucceededEvent) => {
      const collection = collectionOf.get(event.requestId);
      if (collection) steps.push(`succeeded ${collection}`);
    });
    const start = Date.parse('2026-05-10T08:00:00Z');
    await testApp.database.connection.collection('flights').insertMany(
      Array.from({ length: 6 }, (_, index) => ({
        flightId: 700_000 + index,
        flightNumber: `REF${index}`,
        resourceId: 1 + (index % 2),
        departure: { icao: 'LIRF', at: new Date(start + index * 3_600_000) },
        arrival: { icao: 'LPPT', at: new Date(start + index * 3_600_000 + 2 * 3_600_000) },
      })),
    );
    bearer = `Bearer ${await testApp.token(['timeline:read'])}`;
  });
  afterAll(() => testApp.close());

  async function read(path: string): Promise<{ entries: LegacyEntry[]; steps: Step[]; asked: number[] }> {
    steps.length = 0;
    asked.length = 0;
    const entries = (await request(testApp.app).get(path).set('Authorization', bearer).expect(200)).body as LegacyEntry[];
    return { entries, steps: [...steps], asked: [...asked] };
  }

  const startedBefore = (list: Step[], first: Step, second: Step) => list.indexOf(first) >= 0 && list.indexOf(first) < list.indexOf(second);

  it('asks for the airports and resources a large read will show beside its flights once reads have shown them, with their current values', async () => {
    // The first large read of the process knows no airport yet: it asks for its flights' after them.
    const first = await read(LARGE);
    expect(first.entries).toHaveLength(6);
    expect(first.entries[0].dep).toMatchObject({ icao: 'LIRF', iata: 'FCO', city: 'Rome' });
    expect(first.steps.filter((step) => step === 'started airports')).toHaveLength(1);
    expect(startedBefore(first.steps, 'succeeded flights', 'started airports')).toBe(true);

    // An airport renamed in between: the next read shows the new name.
    const renamed = await testApp.graphql(UpsertAirportDocument, { input: { ...AIRPORTS.LIRF, city: 'Roma Fiumicino' } });
    expect(renamed.body.errors).toBeUndefined();
    const second = await read(LARGE);
    expect(second.entries.map((entry) => entry.dep.city)).toEqual(Array(6).fill('Roma Fiumicino'));
    expect(second.entries.map((entry) => entry.arr)).toEqual(Array(6).fill({ icao: 'LPPT', iata: 'LIS', city: 'Lisbon', country: 'Portugal (PT)' }));
    expect(second.entries.map((entry) => entry.backgroundColor)).toEqual(['steelblue', 'darkorange', 'steelblue', 'darkorange', 'steelblue', 'darkorange']);
    // One question for them, sent before the flights' answer came: none after it.
    expect(second.steps.filter((step) => step === 'started airports')).toHaveLength(1);
    expect(startedBefore(second.steps, 'started airports', 'succeeded flights')).toBe(true);
    expect(second.steps.filter((step) => step.startsWith('started'))).toHaveLength(2);
  });

  it('asks again, after its flights, for airports no read had shown, and then learns them', async () => {
    await testApp.database.connection.collection('flights').insertOne({
      flightId: 700_100,
      flightNumber: 'REF100',
      resourceId: 2,
      departure: { icao: 'LGAV', at: new Date('2026-05-20T08:00:00Z') },
      arrival: { icao: 'LIML', at: new Date('2026-05-20T11:00:00Z') },
    });
    const withNew = await read(LARGE);
    const athens = withNew.entries.find((entry) => entry.flight_id === 700_100)!;
    expect(athens.dep).toEqual({ icao: 'LGAV', iata: 'ATH', city: 'Athens', country: 'Greece (GR)' });
    expect(athens.arr).toEqual({ icao: 'LIML', iata: 'LIN', city: 'Milan', country: 'Italy ()' });
    expect(athens.backgroundColor).toBe('darkorange');
    // Those it knew, beside the flights; the two new ones after them.
    expect(withNew.steps.filter((step) => step === 'started airports')).toHaveLength(2);
    expect(startedBefore(withNew.steps, 'started airports', 'succeeded flights')).toBe(true);
    expect(withNew.steps.lastIndexOf('started airports')).toBeGreaterThan(withNew.steps.indexOf('succeeded flights'));

    const next = await read(LARGE);
    expect(next.entries).toEqual(withNew.entries);
    expect(next.steps.filter((step) => step === 'started airports')).toHaveLength(1);
    expect(startedBefore(next.steps, 'started airports', 'succeeded flights')).toBe(true);
  });

  it('shows an airport it asked for before knowing the flights as unknown when it does not exist, as the exact question would', async () => {
    await testApp.database.connection.collection('airports').deleteOne({ icao: 'LIML' });
    const { entries, steps: sent } = await read(LARGE);
    expect(entries.find((entry) => entry.flight_id === 700_100)!.arr).toEqual({ icao: 'LIML', iata: '', city: '', country: ' ()' });
    // LIML was among those asked for: not asked again.
    expect(sent.filter((step) => step === 'started airports')).toHaveLength(1);
  });

  it('remembers at most 2,000 airports: a read of more asks for the rest after its flights, every time', async () => {
    const codes = Array.from({ length: 2_001 }, (_, index) => `Z${String.fromCharCode(65 + Math.floor(index / 676), 65 + (Math.floor(index / 26) % 26), 65 + (index % 26))}`);
    const db = testApp.database.connection;
    await db.collection('airports').insertMany(codes.map((icao) => ({ icao, iata: '', city: `City ${icao}`, country: 'Nowhere', countryTag: 'NW', timezone: 'UTC' })));
    const start = Date.parse('2026-05-25T00:00:00Z');
    await db.collection('flights').insertMany(
      codes.map((icao, index) => ({ flightId: 710_000 + index, flightNumber: `MANY${index}`, resourceId: 1, departure: { icao, at: new Date(start + index * 60_000) }, arrival: { icao: 'LPPT', at: new Date(start + index * 60_000 + 3_600_000) } })),
    );
    const learning = await read(LARGE);
    for (const [round, { entries, steps: sent, asked: sizes }] of [learning, await read(LARGE), await read(LARGE)].entries()) {
      const many = entries.filter((entry) => entry.flight_id >= 710_000);
      expect(many).toHaveLength(2_001);
      expect(many.every((entry, index) => entry.dep.icao === codes[index] && entry.dep.city === `City ${codes[index]}` && entry.dep.country === 'Nowhere (NW)')).toBe(true);
      // The first knew few of them; from the second on, 2,000 are asked beside the flights (no more: the
      // bound), the few left after them.
      if (round > 0) {
        expect(sizes).toHaveLength(2);
        expect(sizes[0]).toBe(2_000);
        expect(sizes[1]).toBeGreaterThan(0);
        expect(sizes[1]).toBeLessThan(10);
        expect(startedBefore(sent, 'started airports', 'succeeded flights')).toBe(true);
      }
    }
  });

  it('asks a small read’s airports and resources after its flights, exactly those', async () => {
    const { entries, steps: sent } = await read(SMALL);
    expect(entries).toHaveLength(6);
    expect(sent).toEqual(['started flights', 'succeeded flights', 'started airports', 'succeeded airports']);
  });
});

describe('a large read whose commands fail (fail points on an engine of its own)', () => {
  const dbName = uniqueDatabaseName('timeline_reference_faults');
  let engine: EmbeddedMongo;
  let driver: MongoClient;
  let testApp: TestApp;
  let bearer: string;

  beforeAll(async () => {
    engine = await startEmbeddedMongo({ testCommands: true });
    testApp = await startTestApp('timeline_reference_faults', { TIMELINE_LARGE_READ_ENTRIES: '300', OUTBOX_SWEEP_INTERVAL_MS: '3600000' }, { dbName, serverUri: engine.uri });
    driver = await MongoClient.connect(engine.uri);
    await createReferenceData(testApp);
    await insertManyFlights(testApp, 40, { from: '2026-05-01', firstId: 800_000, numberPrefix: 'FLT' });
    bearer = `Bearer ${await testApp.token(['timeline:read'])}`;
    // A first large read: from the next one on, the airports are asked for beside the flights.
    await request(testApp.app).get(LARGE).set('Authorization', bearer).expect(200);
  });
  afterEach(() => driver.db('admin').command({ configureFailPoint: 'failCommand', mode: 'off' }));
  afterAll(async () => {
    await testApp?.close();
    await driver?.close();
    await engine?.stop();
  });

  const failNext = (times: number, errorCode: number, namespace?: string) =>
    driver.db('admin').command({ configureFailPoint: 'failCommand', mode: { times }, data: { failCommands: ['aggregate'], errorCode, ...(namespace ? { namespace } : {}) } });

  it('answers the error of its airports’ command, never entries without their airports', async () => {
    await failNext(1, 2, `${dbName}.airports`);
    const refused = await request(testApp.app).get(LARGE).set('Authorization', bearer);
    await failNext(1, 2, `${dbName}.flights`);
    const refusedByFlights = await request(testApp.app).get(LARGE).set('Authorization', bearer);
    // The same answer whichever of its two commands failed: an unexpected database error.
    expect(refused.status).toBe(500);
    expect(refusedByFlights.status).toBe(500);
    expect(refused.body).not.toBeInstanceOf(Array);
  });

  it('answers the error, and stays up, when both commands fail (the early one failing while nothing awaits it yet)', async () => {
    await failNext(2, 2);
    const refused = await request(testApp.app).get(LARGE).set('Authorization', bearer);
    expect(refused.status).toBeGreaterThanOrEqual(500);
    const entries = (await request(testApp.app).get(LARGE).set('Authorization', bearer).expect(200)).body as LegacyEntry[];
    expect(entries).toHaveLength(40);
  });

  it('answers 503 when the database stays unavailable to its airports’ command', async () => {
    await failNext(2, 91, `${dbName}.airports`);
    const refused = await request(testApp.app).get(LARGE).set('Authorization', bearer);
    expect(refused.status).toBe(503);
  });

  it('retries its airports’ command once after an error MongoDB retries reads on', async () => {
    await failNext(1, 91, `${dbName}.airports`);
    const entries = (await request(testApp.app).get(LARGE).set('Authorization', bearer).expect(200)).body as LegacyEntry[];
    expect(entries).toHaveLength(40);
    expect(entries[0].dep).toEqual({ icao: 'LIRF', iata: 'FCO', city: 'Rome', country: 'Italy (IT)' });
    expect(entries[0].arr).toEqual({ icao: 'LPPT', iata: 'LIS', city: 'Lisbon', country: 'Portugal (PT)' });
  });
});
