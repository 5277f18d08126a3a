import type { Client } from 'graphql-ws';
import type { CommandStartedEvent } from 'mongodb';
import { UpdateFlightDocument } from '../../src/graphql/generated/operations';
import { waitFor } from '../app/child-processes';
import { listen } from '../clients/listening-app';
import { uniqueDatabaseName } from '../helpers/database';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { bearer, ResultQueue, subscriptionsListening, wsClient } from './live-app';

/*
 * One token subject may hold WS_MAX_CONNECTIONS_PER_SUBJECT × WS_MAX_SUBSCRIPTIONS_PER_CONNECTION
 * subscriptions; alike ones (same document and variables, same subject and scopes) are executed
 * once per event, so what a client costs does not grow with the copies it opens. Counted through
 * the driver: each execution of `flight { … }` reads the flight, in the process serving the
 * sockets; the writes come from another process on the same database.
 */

const WATCH = 'subscription { timelineChanged(start: "2026-06-01", end: "2026-06-30") { change flightId flight { flightNumber } } }';

type Change = { timelineChanged: { change: string; flightId: number; flight: { flightNumber: string } | null } };

describe('alike subscriptions of one subject are executed once per event', () => {
  const dbName = uniqueDatabaseName('ws_shared_execution');
  let serving: TestApp;
  let writer: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  const clients: Client[] = [];
  const flightReads: CommandStartedEvent[] = [];

  beforeAll(async () => {
    serving = await startTestApp('ws_shared_execution', { OUTBOX_SWEEP_INTERVAL_MS: '3600000' }, { dbName, monitorCommands: true });
    writer = await startTestApp('ws_shared_execution', { OUTBOX_SWEEP_INTERVAL_MS: '3600000' }, { dbName });
    server = await listen(serving.app, serving.gateway);
    await createReferenceData(writer);
    serving.database.connection.getClient().on('commandStarted', (event: CommandStartedEvent) => {
      if (event.commandName === 'find' && event.command.find === 'flights') flightReads.push(event);
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await server?.close();
    await serving?.close();
    await writer?.database.connection.dropDatabase();
    await writer?.close();
  });

  const connect = async (token: string) => {
    const client = wsClient(`${server.url.replace(/^http/, 'ws')}/graphql`, bearer(token));
    clients.push(client);
    return client;
  };

  it('reads the flight once per subject for ten alike subscriptions on two sockets, and each gets the same answer', async () => {
    // The serving process must have read the flight's creation before anyone subscribes: read later, it
    // would reach the new subscriptions too (as ENTERED) and be counted among the reads below.
    const seen = new Set<number>();
    const unlisten = serving.gateway.changes.feed.listen((event) => {
      if (event.type === 'flight.created') seen.add(event.flightId);
    });
    const flightId = await createFlight(writer, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-06-10T08:00:00Z', arrivalAt: '2026-06-10T09:00:00Z' });
    await waitFor(() => seen.has(flightId), 60_000);
    unlisten();
    const mine = await serving.token(['timeline:read'], 'dashboard');
    const theirs = await serving.token(['timeline:read'], 'another-desk');
    const sockets = [await connect(mine), await connect(mine), await connect(theirs)];
    const queues = [
      ...Array.from({ length: 10 }, (_, index) => new ResultQueue<Change>(sockets[index % 2], WATCH)),
      new ResultQueue<Change>(sockets[2], WATCH),
    ];
    await Promise.all(sockets.map((client) => subscriptionsListening(client)));

    flightReads.length = 0;
    const { body } = await writer.graphql(UpdateFlightDocument, { id: flightId, input: { flightNumber: 'SHR101' } as never });
    expect(body.errors).toBeUndefined();
    for (const queue of queues) expect((await queue.data()).timelineChanged).toEqual({ change: 'CHANGED', flightId, flight: { flightNumber: 'SHR101' } });
    // One execution per subject: two reads of the flight, not eleven.
    expect(flightReads.length).toBe(2);
    queues.forEach((queue) => queue.unsubscribe());
  });
});
