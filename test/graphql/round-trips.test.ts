import type { CommandStartedEvent } from 'mongodb';
import { FlightsDocument, TimelineEventsDocument } from '../../src/graphql/generated/operations';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createReferenceData } from '../helpers/timeline-fixtures';

/** Database commands that fetch data (getMore only continues a cursor already counted). */
const QUERY_COMMANDS = new Set(['find', 'aggregate', 'count', 'distinct']);

describe('database round trips of a large timeline', () => {
  let testApp: TestApp;
  const commands: string[] = [];

  async function seedFlights(count: number, firstId: number): Promise<void> {
    const start = Date.parse('2026-03-01T06:00:00Z');
    const flights = Array.from({ length: count }, (_, index) => ({
      flightId: firstId + index,
      flightNumber: `RT${firstId + index}`,
      resourceId: 1 + (index % 2),
      departure: { icao: index % 2 ? 'LIRF' : 'LPPT', at: new Date(start + index * 60_000) },
      arrival: { icao: index % 2 ? 'LGAV' : 'LIML', at: new Date(start + index * 60_000 + 3_600_000) },
    }));
    const db = testApp.database.connection.db!;
    await db.collection('flights').insertMany(flights);
    await db.collection('passenger_lists').insertMany(
      flights.filter((_, index) => index % 3 === 0).map((flight) => ({ flightId: flight.flightId, version: 1, passengerCount: 3, passengers: [], history: [] })),
    );
  }

  async function countQueries(run: () => Promise<unknown>): Promise<number> {
    commands.length = 0;
    await run();
    return commands.filter((name) => QUERY_COMMANDS.has(name)).length;
  }

  beforeAll(async () => {
    // No outbox sweep during the count: it is background work, not the request's.
    testApp = await startTestApp('round_trips', { OUTBOX_SWEEP_INTERVAL_MS: '3600000' }, { monitorCommands: true });
    await createReferenceData(testApp);
    // The change feed's and the webhook worker's background reads (src/changes, src/webhooks) are not the request's.
    testApp.database.connection.getClient().on('commandStarted', (event: CommandStartedEvent) => {
      if (!/^(change_events|webhook_)/.test(String(event.command[event.commandName]))) commands.push(event.commandName);
    });
  });
  afterAll(() => testApp.close());

  it('costs the same few queries for 10 flights and for 1,000 flights', async () => {
    await seedFlights(10, 100_000);
    const timelineSmall = await countQueries(() => testApp.graphql(TimelineEventsDocument, { view: 'CALENDAR', start: '2026-03-01', end: '2026-03-02', timeZone: null }));
    const flightsSmall = await countQueries(() => testApp.graphql(FlightsDocument, { start: '2026-03-01', end: '2026-03-02', resourceId: null }));

    await seedFlights(990, 200_000);
    let entries = 0;
    const timelineLarge = await countQueries(async () => {
      const { body } = await testApp.graphql(TimelineEventsDocument, { view: 'CALENDAR', start: '2026-03-01', end: '2026-03-02', timeZone: null });
      entries = body.data!.timelineEvents.length;
    });
    const timelineGetMores = commands.filter((name) => name === 'getMore').length;
    let flights = 0;
    let counted = 0;
    const flightsLarge = await countQueries(async () => {
      const { body } = await testApp.graphql(FlightsDocument, { start: '2026-03-01', end: '2026-03-02', resourceId: null });
      flights = body.data!.flights.length;
      counted = body.data!.flights.filter((flight) => flight.passengerCount === 3).length;
    });

    expect(entries).toBe(1000);
    expect(flights).toBe(1000);
    expect(counted).toBe(334);
    // flights with their passenger counts (one aggregate) + their airports and resources (one aggregate, $unionWith)
    expect(timelineLarge).toBe(2);
    // The flights come in one reply, not a first batch and a getMore.
    expect(timelineGetMores).toBe(0);
    expect(flightsLarge).toBe(4);
    expect(timelineLarge).toBe(timelineSmall);
    expect(flightsLarge).toBe(flightsSmall);
  });
});
