import { Client as UrqlClient, cacheExchange, fetchExchange, subscriptionExchange } from '@urql/core';
import type { Client } from 'graphql-ws';
import request from 'supertest';
import { DeleteFlightDocument, UpdateFlightDocument } from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { bearer, ResultQueue, startLiveApp, subscriptionsListening, wsClient, type LiveApp } from './live-app';

/*
 * timelineChanged through graphql-ws's own client, driven by real writes: GraphQL mutations and
 * the REST facade's passenger push. The watched range is the week of 2026-06-08 to 2026-06-14
 * (Europe/Rome, the test app's zone). That a change is not reported is shown by order: the next
 * event to arrive is the one of a later change.
 */

interface Change {
  change: 'ENTERED' | 'CHANGED' | 'LEFT';
  eventType: string;
  flightId: number;
  flightGlobalId: string;
  seq: number;
  at: string;
  flight?: { flightId: number; flightNumber: string; resourceId: number; departure: { at: string } } | null;
}
type Changes = ResultQueue<{ timelineChanged: Change }>;

const TIMELINE_CHANGED = /* GraphQL */ `
  subscription Watch($start: String!, $end: String!, $resourceId: Int, $timeZone: String) {
    timelineChanged(start: $start, end: $end, resourceId: $resourceId, timeZone: $timeZone) {
      change
      eventType
      flightId
      flightGlobalId
      seq
      at
    }
  }
`;

const WITH_FLIGHT = /* GraphQL */ `
  subscription WatchWithFlight($start: String!, $end: String!) {
    timelineChanged(start: $start, end: $end) {
      change
      flightId
      flight {
        flightId
        flightNumber
        resourceId
        departure {
          at
        }
      }
    }
  }
`;

const WEEK = { start: '2026-06-08', end: '2026-06-14' };
const INSIDE = { departureAt: '2026-06-10T08:00:00Z', arrivalAt: '2026-06-10T10:00:00Z' };
const OUTSIDE = { departureAt: '2026-07-10T08:00:00Z', arrivalAt: '2026-07-10T10:00:00Z' };

describe('timelineChanged over graphql-ws', () => {
  let live: LiveApp;
  let client: Client;
  const open: Changes[] = [];

  beforeAll(async () => {
    live = await startLiveApp('subscriptions_timeline');
    await createReferenceData(live.testApp);
    client = wsClient(live.wsUrl, bearer(await live.testApp.token(['timeline:read', 'passengers:read'])));
  });
  afterEach(() => open.splice(0).forEach((queue) => queue.unsubscribe()));
  afterAll(async () => {
    await client?.dispose();
    await live?.close();
  });

  const watch = async (variables: Record<string, unknown> = WEEK, query = TIMELINE_CHANGED): Promise<Changes> => {
    const queue: Changes = new ResultQueue(client, query, variables);
    open.push(queue);
    await subscriptionsListening(client);
    return queue;
  };
  const nextChange = async (queue: Changes) => (await queue.data()).timelineChanged;
  const create = (spec: Partial<Parameters<typeof createFlight>[1]> = {}) => createFlight(live.testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', ...INSIDE, ...spec });
  const update = async (id: number, input: Record<string, unknown>) => {
    const { body } = await live.testApp.graphql(UpdateFlightDocument, { id, input: input as never });
    expect(body.errors).toBeUndefined();
  };
  const remove = async (id: number) => {
    const { body } = await live.testApp.graphql(DeleteFlightDocument, { id });
    expect(body.errors).toBeUndefined();
  };

  it('reports a flight created in the range as ENTERED, with its ids, the event type, seq and commit time', async () => {
    const changes = await watch();
    const before = Date.now();
    const flightId = await create();
    const change = await nextChange(changes);
    expect(change).toEqual({ change: 'ENTERED', eventType: 'flight.created', flightId, flightGlobalId: `Flight:${flightId}`, seq: expect.any(Number), at: expect.any(String) });
    expect(Number.isInteger(change.seq)).toBe(true);
    expect(Date.parse(change.at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(change.at)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('says nothing of flights outside the range, and numbers events in commit order', async () => {
    const changes = await watch();
    await create(OUTSIDE);
    const first = await create();
    const second = await create();
    const [a, b] = [await nextChange(changes), await nextChange(changes)];
    expect([a.flightId, b.flightId]).toEqual([first, second]);
    expect(b.seq).toBeGreaterThan(a.seq);
  });

  it('follows one flight changing within, leaving, re-entering and being deleted from the range', async () => {
    const flightId = await create();
    const changes = await watch();
    await update(flightId, { flightNumber: 'IFL777' });
    await update(flightId, { departureAt: '2026-06-11T08:00:00Z', arrivalAt: '2026-06-11T09:00:00Z' });
    await update(flightId, OUTSIDE);
    await update(flightId, { flightNumber: 'IFL778' }); // outside: nothing
    await update(flightId, INSIDE);
    await remove(flightId);
    const seen = [];
    for (let i = 0; i < 5; i++) {
      const change = await nextChange(changes);
      expect(change.flightId).toBe(flightId);
      seen.push([change.change, change.eventType]);
    }
    expect(seen).toEqual([
      ['CHANGED', 'flight.updated'],
      ['CHANGED', 'flight.updated'],
      ['LEFT', 'flight.updated'],
      ['ENTERED', 'flight.updated'],
      ['LEFT', 'flight.deleted'],
    ]);
  });

  it('treats the range bounds as timelineEvents does: a flight landing exactly at the start is outside, one in the air across it inside', async () => {
    const changes = await watch({ start: '2026-06-08T12:00:00Z', end: '2026-06-08T18:00:00Z' });
    await create({ departureAt: '2026-06-08T10:00:00Z', arrivalAt: '2026-06-08T12:00:00Z' }); // lands at the start
    await create({ departureAt: '2026-06-08T18:00:00Z', arrivalAt: '2026-06-08T19:00:00Z' }); // leaves at the (excluded) end
    const across = await create({ departureAt: '2026-06-08T11:00:00Z', arrivalAt: '2026-06-08T13:00:00Z' });
    expect(await nextChange(changes)).toMatchObject({ change: 'ENTERED', flightId: across });
  });

  it('reads the range in the timeZone argument', async () => {
    // 2026-06-08 in Kolkata is 2026-06-07T18:30Z to 2026-06-08T18:30Z.
    const changes = await watch({ start: '2026-06-08', end: '2026-06-08', timeZone: 'Asia/Kolkata' });
    await create({ departureAt: '2026-06-08T19:00:00Z', arrivalAt: '2026-06-08T20:00:00Z' }); // the 9th there
    const early = await create({ departureAt: '2026-06-07T19:00:00Z', arrivalAt: '2026-06-07T20:00:00Z' }); // the 8th there
    expect(await nextChange(changes)).toMatchObject({ change: 'ENTERED', flightId: early });
  });

  it('watches one resource: a flight moved onto it enters, moved off it leaves', async () => {
    const flightId = await create({ resourceId: 2 });
    const changes = await watch({ ...WEEK, resourceId: 1 });
    await update(flightId, { flightNumber: 'IFL201' }); // still on resource 2: nothing
    await update(flightId, { resourceId: 1 });
    await update(flightId, { resourceId: 2 });
    expect([(await nextChange(changes)).change, (await nextChange(changes)).change]).toEqual(['ENTERED', 'LEFT']);
  });

  it('reports a passenger push through the REST facade as CHANGED (the entry’s passenger count changed)', async () => {
    const flightId = await create();
    const changes = await watch();
    const token = await live.testApp.token();
    const pushed = await request(live.url)
      .post(`/api/broker/v0/flight/${flightId}/passenger`)
      .set('Authorization', `Bearer ${token}`)
      .send({ created: [passengerRecord(1), passengerRecord(2)], modified: [], deleted: [] });
    expect(pushed.status).toBe(200);
    expect(await nextChange(changes)).toMatchObject({ change: 'CHANGED', eventType: 'passenger_list.updated', flightId });
  });

  it('resolves `flight` only when selected, as the flight is when the event is sent, and null once deleted', async () => {
    const changes = await watch(WEEK, WITH_FLIGHT);
    const flightId = await create({ flightNumber: 'IFL300' });
    await remove(flightId);
    const entered = await nextChange(changes);
    const left = await nextChange(changes);
    expect(entered.change).toBe('ENTERED');
    // Read when sent: the flight may be gone already, or still there as created.
    expect([null, { flightId, flightNumber: 'IFL300', resourceId: 1, departure: { at: '2026-06-10T08:00:00.000Z' } }]).toContainEqual(entered.flight);
    expect(left).toEqual({ change: 'LEFT', flightId, flight: null });
  });

  it('reaches urql through its subscriptionExchange forwarding to graphql-ws, as the README shows', async () => {
    const urql = new UrqlClient({
      url: `${live.url}/graphql`,
      exchanges: [
        cacheExchange,
        fetchExchange,
        subscriptionExchange({
          forwardSubscription: (request) => ({
            subscribe: (sink) => ({ unsubscribe: client.subscribe({ ...request, query: request.query || '' }, sink) }),
          }),
        }),
      ],
    });
    const received: Change[] = [];
    const arrived = new Promise<void>((resolve) => {
      const { unsubscribe } = urql.subscription<{ timelineChanged: Change }>(TIMELINE_CHANGED, WEEK).subscribe((result) => {
        if (result.data) received.push(result.data.timelineChanged);
        unsubscribe();
        resolve();
      });
    });
    await subscriptionsListening(client);
    const flightId = await create();
    await arrived;
    expect(received).toEqual([expect.objectContaining({ change: 'ENTERED', flightId, flightGlobalId: `Flight:${flightId}` })]);
  });

  describe('checks its arguments as timelineEvents does, answering that subscription with an error', () => {
    /** The errors of the one result a refused subscription gets before the server completes it. */
    const refusal = async (variables: Record<string, unknown>) => {
      const queue = await watch(variables);
      const { data, errors } = await queue.next();
      expect(data ?? null).toBeNull();
      expect(await queue.ended()).toEqual(new Error('completed'));
      return errors;
    };

    it('refuses a range longer than 366 days, naming end', async () => {
      const result = (await refusal({ start: '2026-01-01', end: '2027-06-01' })) as unknown as { message: string; extensions: { code: string; details: { field: string }[] } }[];
      expect(result).toEqual([
        expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT', details: [expect.objectContaining({ field: 'end' })] }, message: expect.stringContaining('366 days') }),
      ]);
    });

    it('refuses an unreadable start and an unknown time zone, naming each', async () => {
      const badStart = (await refusal({ start: 'tomorrow', end: '2026-06-14' })) as unknown as { extensions: { code: string; details: { field: string }[] } }[];
      expect(badStart[0].extensions).toEqual({ code: 'BAD_USER_INPUT', details: [expect.objectContaining({ field: 'start' })] });
      const badZone = (await refusal({ ...WEEK, timeZone: 'Mars/Olympus' })) as unknown as { extensions: { code: string; details: { field: string }[] } }[];
      expect(badZone[0].extensions).toEqual({ code: 'BAD_USER_INPUT', details: [expect.objectContaining({ field: 'timeZone' })] });
    });
  });
});
