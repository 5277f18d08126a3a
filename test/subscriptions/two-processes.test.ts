import type { Client } from 'graphql-ws';
import request from 'supertest';
import { uniqueDatabaseName } from '../helpers/database';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { listen } from '../clients/listening-app';
import { bearer, ResultQueue, subscriptionsListening, wsClient } from './live-app';

/*
 * Two service processes on one database, as a deployment with two replicas behind a load balancer
 * runs: writes handled by one reach subscribers connected to the other (through change_events).
 */
describe('subscriptions across service processes', () => {
  const dbName = uniqueDatabaseName('ws_two_processes');
  let writer: TestApp;
  let reader: TestApp;
  let readerServer: Awaited<ReturnType<typeof listen>>;
  let client: Client;
  let token: string;

  beforeAll(async () => {
    writer = await startTestApp('ws_two_processes', {}, { dbName });
    reader = await startTestApp('ws_two_processes', {}, { dbName });
    readerServer = await listen(reader.app, reader.gateway);
    token = await writer.token();
    await createReferenceData(writer);
    client = wsClient(`${readerServer.url.replace(/^http/, 'ws')}/graphql`, bearer(token));
  });
  afterAll(async () => {
    await client?.dispose();
    await readerServer?.close();
    await reader?.close();
    await writer?.database.connection.dropDatabase();
    await writer?.close();
  });

  it('delivers a flight created and a list pushed on one process to subscribers of the other', async () => {
    const timeline = new ResultQueue<{ timelineChanged: { change: string; eventType: string; flightId: number } }>(
      client,
      'subscription ($start: String!, $end: String!) { timelineChanged(start: $start, end: $end) { change eventType flightId } }',
      { start: '2026-09-01', end: '2026-09-02' },
    );
    await subscriptionsListening(client);
    const flightId = await createFlight(writer, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-09-01T08:00:00Z', arrivalAt: '2026-09-01T09:00:00Z' });
    expect((await timeline.data()).timelineChanged).toEqual({ change: 'ENTERED', eventType: 'flight.created', flightId });

    const list = new ResultQueue<{ passengerListChanged: { version: number; created: number[]; passengerCount: number } }>(
      client,
      'subscription ($flightId: Int!) { passengerListChanged(flightId: $flightId) { version created passengerCount } }',
      { flightId },
    );
    await subscriptionsListening(client);
    const pushed = await request(writer.app)
      .post(`/api/broker/v0/flight/${flightId}/passenger`)
      .set('Authorization', `Bearer ${token}`)
      .send({ created: [passengerRecord(1), passengerRecord(2)], modified: [], deleted: [] });
    expect(pushed.status).toBe(200);
    expect((await list.data()).passengerListChanged).toEqual({ version: pushed.body.version, created: [1, 2], passengerCount: 2 });
    expect((await timeline.data()).timelineChanged).toEqual({ change: 'CHANGED', eventType: 'passenger_list.updated', flightId });
    timeline.unsubscribe();
    list.unsubscribe();
  });
});
