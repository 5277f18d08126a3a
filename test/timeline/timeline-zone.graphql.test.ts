import { FlightDocument, TimelineEventsDocument } from '../../src/graphql/generated/operations';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

const detailFields = (errors: readonly { extensions?: Record<string, unknown> }[] | undefined) =>
  ((errors?.[0]?.extensions?.details as { field: string }[] | undefined) ?? []).map((detail) => detail.field);

describe('GraphQL timelineEvents: one time zone per answer (service TIMEZONE Europe/Rome)', () => {
  let testApp: TestApp;
  let westbound: number;

  beforeAll(async () => {
    testApp = await startTestApp('timeline_zone_graphql');
    await createReferenceData(testApp);
    // Athens (UTC+3) 09:00 local to Lisbon (UTC+1) 11:00 local: four hours in the air.
    westbound = await createFlight(testApp, { flightNumber: 'IFL301', resourceId: 1, from: 'LGAV', to: 'LPPT', departureAt: '2026-07-01T06:00:00Z', arrivalAt: '2026-07-01T10:00:00Z' });
  });
  afterAll(() => testApp.close());

  const entry = async (timeZone: string | null, start = '2026-07-01', end = '2026-07-01') => {
    const { status, body } = await testApp.graphql(TimelineEventsDocument, { view: 'CALENDAR', start, end, timeZone });
    expect(status).toBe(200);
    const found = body.data!.timelineEvents.filter((event) => event.flightId === westbound);
    expect(found).toHaveLength(1);
    return [found[0].start, found[0].end];
  };

  it('shows start and end in the service TIMEZONE by default', async () => {
    expect(await entry(null)).toEqual(['2026-07-01 08:00', '2026-07-01 12:00']);
  });

  it('shows start and end in the timeZone argument, and reads offset-less bounds in it', async () => {
    expect(await entry('UTC')).toEqual(['2026-07-01 06:00', '2026-07-01 10:00']);
    expect(await entry('America/Los_Angeles', '2026-06-30T23:00:00', '2026-07-01T00:00:00')).toEqual(['2026-06-30 23:00', '2026-07-01 03:00']);
    // The same wall-clock hour read in Rome is 21:00Z–22:00Z on the 30th: the flight is outside it.
    const { body } = await testApp.graphql(TimelineEventsDocument, { view: 'CALENDAR', start: '2026-06-30T23:00:00', end: '2026-07-01T00:00:00', timeZone: null });
    expect(body.data!.timelineEvents).toEqual([]);
  });

  it('keeps airport-local times on the flight’s endpoints', async () => {
    const { body } = await testApp.graphql(FlightDocument, { id: westbound });
    expect([body.data!.flight!.departure.localTime, body.data!.flight!.arrival.localTime]).toEqual(['2026-07-01 09:00', '2026-07-01 11:00']);
  });

  it('answers BAD_USER_INPUT naming timeZone for an unknown zone', async () => {
    const { status, body } = await testApp.graphql(TimelineEventsDocument, { view: 'RESOURCE', start: '2026-07-01', end: '2026-07-01', timeZone: 'Europe/Atlantis' });
    expect(status).toBe(400);
    expect(body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');
    expect(body.errors![0].message).toContain('Europe/Atlantis');
    expect(detailFields(body.errors)).toEqual(['timeZone']);
    expect(body.data ?? null).toBeNull();
  });
});
