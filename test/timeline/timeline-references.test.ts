import type { CommandStartedEvent, CommandSucceededEvent } from 'mongodb';
import request from 'supertest';
import { UpsertAirportDocument } from '../../src/graphql/generated/operations';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { AIRPORTS, createReferenceData } from '../helpers/timeline-fixtures';

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

  async function read(path: string): Promise<{ entries: LegacyEntry[]; steps: Step[] }> {
    steps.length = 0;
    const entries = (await request(testApp.app).get(path).set('Authorization', bearer).expect(200)).body as LegacyEntry[];
    return { entries, steps: [...steps] };
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

  it('asks a small read’s airports and resources after its flights, exactly those', async () => {
    const { entries, steps: sent } = await read(SMALL);
    expect(entries).toHaveLength(6);
    expect(sent).toEqual(['started flights', 'succeeded flights', 'started airports', 'succeeded airports']);
  });
});
