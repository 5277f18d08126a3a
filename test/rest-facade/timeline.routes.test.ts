import request from 'supertest';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

const CALENDAR = '/api/broker/v0/calendar/timeline/event';
const RESOURCE = '/api/broker/v0/resource/timeline/event';

describe('timeline routes (service TIMEZONE Europe/Rome)', () => {
  let testApp: TestApp;
  let bearer: string;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    testApp = await startTestApp('timeline_routes');
    bearer = `Bearer ${await testApp.token(['timeline:read'])}`;
    await createReferenceData(testApp);
    // Lisbon (UTC+1 in June) to Athens (UTC+3): both ends in the response's one zone, not the airports'.
    ids.lisbonAthens = await createFlight(testApp, { flightNumber: 'IFL101', resourceId: 2, from: 'LPPT', to: 'LGAV', departureAt: '2026-06-10T08:00:00Z', arrivalAt: '2026-06-10T12:00:00Z' });
    // Same departure instant, created later: calendar order falls back to the flight id.
    ids.sameDeparture = await createFlight(testApp, { flightNumber: 'IFL102', resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-06-10T08:00:00Z', arrivalAt: '2026-06-10T09:10:00Z', backgroundColor: 'gold' });
    // Departs 23:30 in Rome on the 10th, lands 01:30 in Lisbon on the 11th.
    ids.crossesMidnight = await createFlight(testApp, { flightNumber: 'IFL103', resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: '2026-06-10T21:30:00Z', arrivalAt: '2026-06-11T00:30:00Z' });
    // Departs 23:00 on the 9th (Rome), lands 01:30 on the 10th: overlaps the start day.
    ids.overlapsStart = await createFlight(testApp, { flightNumber: 'IFL104', resourceId: 2, from: 'LIML', to: 'LIRF', departureAt: '2026-06-09T21:00:00Z', arrivalAt: '2026-06-09T23:30:00Z' });
    // Entirely on the 9th, and entirely on the 11th (Rome): outside a 10th-only range.
    ids.before = await createFlight(testApp, { flightNumber: 'IFL105', resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-06-09T10:00:00Z', arrivalAt: '2026-06-09T11:00:00Z' });
    ids.after = await createFlight(testApp, { flightNumber: 'IFL106', resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-06-10T22:30:00Z', arrivalAt: '2026-06-10T23:30:00Z' });
    // 25 October 2026: clocks go back in Rome (a 25-hour day). 23:30 CET is 22:30Z.
    ids.dstLate = await createFlight(testApp, { flightNumber: 'IFL107', resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-10-25T22:30:00Z', arrivalAt: '2026-10-25T22:50:00Z' });
    // Departs Rome 02:30 CEST, lands Lisbon after the change: 03:30 WET.
    ids.dstEarly = await createFlight(testApp, { flightNumber: 'IFL108', resourceId: 2, from: 'LIRF', to: 'LPPT', departureAt: '2026-10-25T00:30:00Z', arrivalAt: '2026-10-25T03:30:00Z' });
    // Westbound, Athens (UTC+3) to Lisbon (UTC+1), four hours: airport-local ends would show two.
    ids.westbound = await createFlight(testApp, { flightNumber: 'IFL109', resourceId: 2, from: 'LGAV', to: 'LPPT', departureAt: '2026-06-12T06:00:00Z', arrivalAt: '2026-06-12T10:00:00Z' });

    await testApp.database.connection.db!.collection('passenger_lists').insertOne({
      flightId: ids.lisbonAthens,
      version: 1,
      passengerCount: 2,
      passengers: [{ id: 1 }, { id: 2 }],
      history: [],
    });
  });

  afterAll(() => testApp.close());

  const get = (path: string, query: string) => request(testApp.app).get(`${path}?${query}`).set('Authorization', bearer);

  it('returns every field of the v0 entry with the contract names, types and formats', async () => {
    const response = await get(CALENDAR, 'start=2026-06-10&end=2026-06-10').expect(200);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    const entry = response.body.find((e: { flight_id: number }) => e.flight_id === ids.lisbonAthens);
    expect(entry).toEqual({
      resourceId: 2,
      flight_id: ids.lisbonAthens,
      flight_number: 'IFL101',
      backgroundColor: 'darkorange',
      textColor: 'black',
      borderColor: 'chocolate',
      start: '2026-06-10 10:00',
      end: '2026-06-10 14:00',
      dep: { icao: 'LPPT', iata: 'LIS', country: 'Portugal (PT)', city: 'Lisbon' },
      arr: { icao: 'LGAV', iata: 'ATH', country: 'Greece (GR)', city: 'Athens' },
      url: 'broker.test',
      api_version: 'v0',
      passengers: 2,
    });
    expect(Object.keys(entry)).toEqual(['resourceId', 'flight_id', 'flight_number', 'backgroundColor', 'textColor', 'borderColor', 'start', 'end', 'dep', 'arr', 'url', 'api_version', 'passengers']);
  });

  it('uses the flight’s own colour before its resource’s, and shows an empty country part as "()"', async () => {
    const response = await get(CALENDAR, 'start=2026-06-10&end=2026-06-10').expect(200);
    const entry = response.body.find((e: { flight_id: number }) => e.flight_id === ids.sameDeparture);
    expect(entry).toMatchObject({ backgroundColor: 'gold', textColor: 'white', borderColor: 'navy', passengers: 0 });
    expect(entry.arr.country).toBe('Italy ()');
  });

  it('includes flights overlapping the range, crossing midnight or starting the day before, and excludes the rest', async () => {
    const response = await get(CALENDAR, 'start=2026-06-10&end=2026-06-10').expect(200);
    const found = response.body.map((e: { flight_id: number }) => e.flight_id);
    expect(found).toEqual([ids.overlapsStart, ids.lisbonAthens, ids.sameDeparture, ids.crossesMidnight]);
    const midnight = response.body.find((e: { flight_id: number }) => e.flight_id === ids.crossesMidnight);
    expect([midnight.start, midnight.end]).toEqual(['2026-06-10 23:30', '2026-06-11 02:30']);
    const early = response.body.find((e: { flight_id: number }) => e.flight_id === ids.overlapsStart);
    expect([early.start, early.end]).toEqual(['2026-06-09 23:00', '2026-06-10 01:30']);
  });

  it('orders the resource view by resource id, then departure', async () => {
    const response = await get(RESOURCE, 'start=2026-06-10&end=2026-06-10').expect(200);
    expect(response.body.map((e: { flight_id: number }) => e.flight_id)).toEqual([ids.sameDeparture, ids.crossesMidnight, ids.overlapsStart, ids.lisbonAthens]);
    expect(response.body.map((e: { resourceId: number }) => e.resourceId)).toEqual([1, 1, 2, 2]);
  });

  it('counts a day of a DST change as 25 hours and shows each end with the zone’s offset at that instant', async () => {
    const response = await get(CALENDAR, 'start=2026-10-25&end=2026-10-25').expect(200);
    const byId = Object.fromEntries(response.body.map((e: { flight_id: number }) => [e.flight_id, e]));
    expect(Object.keys(byId).map(Number).sort()).toEqual([ids.dstEarly, ids.dstLate].sort());
    // 00:30Z is 02:30 CEST; 03:30Z is 04:30 CET, after the clocks went back at 01:00Z.
    expect([byId[ids.dstEarly].start, byId[ids.dstEarly].end]).toEqual(['2026-10-25 02:30', '2026-10-25 04:30']);
    expect(byId[ids.dstLate].start).toBe('2026-10-25 23:30');
  });

  it('accepts FullCalendar date-times with an offset, end exclusive, also with + decoded to a space', async () => {
    const exclusive = await get(CALENDAR, 'start=2026-06-10T00:00:00%2B02:00&end=2026-06-10T10:00:00%2B02:00').expect(200);
    expect(exclusive.body.map((e: { flight_id: number }) => e.flight_id)).toEqual([ids.overlapsStart]);
    const spaced = await get(CALENDAR, 'start=2026-06-10T00:00:00+02:00&end=2026-06-10T10:00:01+02:00').expect(200);
    expect(spaced.body.map((e: { flight_id: number }) => e.flight_id)).toEqual([ids.overlapsStart, ids.lisbonAthens, ids.sameDeparture]);
    const zulu = await get(RESOURCE, 'start=2026-06-10T21:00:00Z&end=2026-06-10T22:00:00.000Z').expect(200);
    expect(zulu.body.map((e: { flight_id: number }) => e.flight_id)).toEqual([ids.crossesMidnight]);
  });

  it('shows a westbound flight ending after it starts, with its true duration', async () => {
    const response = await get(CALENDAR, 'start=2026-06-12&end=2026-06-12').expect(200);
    const entry = response.body.find((e: { flight_id: number }) => e.flight_id === ids.westbound);
    // 06:00Z–10:00Z in Rome (UTC+2); airport-local it would read 09:00 Athens to 11:00 Lisbon.
    expect([entry.start, entry.end]).toEqual(['2026-06-12 08:00', '2026-06-12 12:00']);
  });

  it('renders every entry in the timeZone asked for, and reads a date range in it', async () => {
    // The UTC day of the 10th holds IFL106 (22:30Z) but not IFL104 (ends 23:30Z on the 9th): the Rome day is the other way round.
    const utc = await get(RESOURCE, 'start=2026-06-10&end=2026-06-10&timeZone=UTC').expect(200);
    expect(utc.body.map((e: { flight_id: number }) => e.flight_id)).toEqual([ids.sameDeparture, ids.crossesMidnight, ids.after, ids.lisbonAthens]);
    const times = (body: { flight_id: number; start: string; end: string }[]) => Object.fromEntries(body.map((e) => [e.flight_id, [e.start, e.end]]));
    expect(times(utc.body)).toEqual({
      [ids.sameDeparture]: ['2026-06-10 08:00', '2026-06-10 09:10'],
      [ids.crossesMidnight]: ['2026-06-10 21:30', '2026-06-11 00:30'],
      [ids.after]: ['2026-06-10 22:30', '2026-06-10 23:30'],
      [ids.lisbonAthens]: ['2026-06-10 08:00', '2026-06-10 12:00'],
    });
    const kolkata = await get(CALENDAR, 'start=2026-06-12&end=2026-06-12&timeZone=Asia%2FKolkata').expect(200);
    expect(kolkata.body.map((e: { flight_id: number; start: string; end: string }) => [e.flight_id, e.start, e.end])).toEqual([[ids.westbound, '2026-06-12 11:30', '2026-06-12 15:30']]);
  });

  it('answers FullCalendar’s JSON feed requests: UTC with Z, a named zone without offsets, and cache busters', async () => {
    // timeZone: 'UTC' in FullCalendar.
    const utc = await get(CALENDAR, 'start=2026-06-10T00:00:00Z&end=2026-06-11T00:00:00Z&timeZone=UTC&_=1781049600000').expect(200);
    expect(utc.body.map((e: { flight_id: number }) => e.flight_id)).toEqual([ids.lisbonAthens, ids.sameDeparture, ids.crossesMidnight, ids.after]);
    // timeZone: 'America/New_York': wall-clock bounds without an offset, read in that zone (UTC-4 in June).
    const named = await get(RESOURCE, 'start=2026-06-10T00:00:00&end=2026-06-11T00:00:00&timeZone=America%2FNew_York&_=1781049600000').expect(200);
    expect(named.body.map((e: { flight_id: number; start: string; end: string }) => [e.flight_id, e.start, e.end])).toEqual([
      [ids.sameDeparture, '2026-06-10 04:00', '2026-06-10 05:10'],
      [ids.crossesMidnight, '2026-06-10 17:30', '2026-06-10 20:30'],
      [ids.after, '2026-06-10 18:30', '2026-06-10 19:30'],
      [ids.lisbonAthens, '2026-06-10 04:00', '2026-06-10 08:00'],
    ]);
    // jQuery's cache buster on a plain request; the service zone applies.
    const plain = await get(CALENDAR, 'start=2026-06-10&end=2026-06-10&_=1').expect(200);
    expect(plain.body).toHaveLength(4);
  });

  it('reads a date-time without offset in the service TIMEZONE when no timeZone is given', async () => {
    const offsetLess = await get(CALENDAR, 'start=2026-06-10T00:00:00&end=2026-06-10T10:00:00').expect(200);
    const withOffset = await get(CALENDAR, 'start=2026-06-10T00:00:00%2B02:00&end=2026-06-10T10:00:00%2B02:00').expect(200);
    expect(offsetLess.body.map((e: { flight_id: number }) => e.flight_id)).toEqual([ids.overlapsStart]);
    expect(offsetLess.body).toEqual(withOffset.body);
  });

  it('puts a flight in the first hour of a day whose midnight comes twice in that day, and none of the next day into a day whose midnight is skipped (Atlantic/Azores)', async () => {
    // 31 October 2027: at 01:00 Azores summer time (00:00Z) clocks go back to 00:00: the day starts at 00:00Z.
    const fallBack = await createFlight(testApp, { flightNumber: 'IFL190', resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2027-10-31T00:10:00Z', arrivalAt: '2027-10-31T00:50:00Z' });
    // 28 March 2027: at 00:00 Azores standard time (01:00Z) clocks go forward to 01:00: the day ends at 29 March 00:00Z.
    const nextDay = await createFlight(testApp, { flightNumber: 'IFL191', resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2027-03-29T00:10:00Z', arrivalAt: '2027-03-29T00:40:00Z' });
    const flightsOn = async (day: string) => ((await get(CALENDAR, `start=${day}&end=${day}&timeZone=Atlantic/Azores`).expect(200)).body as Array<{ flight_id: number }>).map((entry) => entry.flight_id);
    expect(await flightsOn('2027-10-31')).toEqual([fallBack]);
    expect(await flightsOn('2027-10-30')).toEqual([]);
    expect(await flightsOn('2027-03-28')).toEqual([]);
    expect(await flightsOn('2027-03-29')).toEqual([nextDay]);
  });

  it('returns an empty array for a range without flights', async () => {
    const response = await get(CALENDAR, 'start=2030-01-01&end=2030-01-31').expect(200);
    expect(response.body).toEqual([]);
  });

  it.each([
    ['start is missing', 'end=2026-06-10', 'start'],
    ['end is missing', 'start=2026-06-10', 'end'],
    ['start is empty', 'start=&end=2026-06-10', 'start'],
    ['start is malformed', 'start=10/06/2026&end=2026-06-10', 'start'],
    ['end is an impossible date', 'start=2026-02-01&end=2026-02-30', 'end'],
    ['a date-time has no time', 'start=2026-06-10T&end=2026-06-11', 'start'],
    ['start is after end', 'start=2026-06-11&end=2026-06-10', 'start'],
    ['start is a date-time after the end day', 'start=2026-06-11T00:00:00Z&end=2026-06-10&timeZone=UTC', 'start'],
    ['an offset beyond 18 hours', 'start=2026-06-10T00:00:00%2B25:00&end=2026-06-11', 'start'],
    ['an offset with 60 minutes', 'start=2026-06-10&end=2026-06-11T00:00:00%2B02:60', 'end'],
    ['the range is longer than 366 days', 'start=2026-01-01&end=2027-01-03', 'end'],
    ['a parameter is an operator object', 'start[$gt]=2026-01-01&end=2026-06-10', 'start[$gt]'],
    ['a parameter is repeated', 'start=2026-06-10&start=2026-06-11&end=2026-06-12', 'start'],
    ['a parameter is unknown', 'start=2026-06-10&end=2026-06-10&view=x', 'view'],
    ['timeZone is not a known zone', 'start=2026-06-10&end=2026-06-10&timeZone=Mars%2FOlympus', 'timeZone'],
    ['timeZone is "local" (only the browser knows it)', 'start=2026-06-10&end=2026-06-10&timeZone=local', 'timeZone'],
    ['timeZone is empty', 'start=2026-06-10&end=2026-06-10&timeZone=', 'timeZone'],
    ['timeZone is repeated', 'start=2026-06-10&end=2026-06-10&timeZone=UTC&timeZone=UTC', 'timeZone'],
  ])('answers 400 naming the parameter when %s', async (_case, query, field) => {
    for (const path of [CALENDAR, RESOURCE]) {
      const response = await get(path, query).expect(400);
      expect(response.body.error.code).toMatch(/BAD_REQUEST|BAD_USER_INPUT/);
      expect(response.body.error.message).toContain(field.replace(/\[.*$/, ''));
      expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(JSON.stringify(response.body)).not.toMatch(/\bat .*\.(js|ts):\d+/);
    }
  });

  it('serves FullCalendar resources with string ids and event colours', async () => {
    const response = await request(testApp.app).get('/api/broker/v0/resource/timeline/resources').set('Authorization', bearer).expect(200);
    expect(response.body).toEqual([
      { id: '1', title: 'Citation XLS+', eventBackgroundColor: 'steelblue', eventBorderColor: 'navy', eventTextColor: 'white' },
      { id: '2', title: 'Phenom 300E', eventBackgroundColor: 'darkorange', eventBorderColor: 'chocolate', eventTextColor: 'black' },
    ]);
  });

  it('accepts the range, zone and cache buster FullCalendar sends to the resources feed (refetchResourcesOnNavigate)', async () => {
    const plain = await request(testApp.app).get('/api/broker/v0/resource/timeline/resources').set('Authorization', bearer).expect(200);
    const navigated = await request(testApp.app)
      .get('/api/broker/v0/resource/timeline/resources?start=2026-06-07T00:00:00&end=2026-06-14T00:00:00&timeZone=Europe%2FRome&_=1781049600000')
      .set('Authorization', bearer)
      .expect(200);
    expect(navigated.body).toEqual(plain.body);
    const unknown = await request(testApp.app).get('/api/broker/v0/resource/timeline/resources?view=week').set('Authorization', bearer).expect(400);
    expect(unknown.body.error.details).toEqual([expect.objectContaining({ field: 'view' })]);
  });
});
