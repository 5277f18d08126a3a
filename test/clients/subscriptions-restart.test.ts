import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { Client as UrqlClient, cacheExchange, fetchExchange, subscriptionExchange } from '@urql/core';
import { createClient, type Client, type ClientOptions } from 'graphql-ws';
import { Environment, Network, Observable, RecordSource, Store, requestSubscription, type GraphQLResponse } from 'relay-runtime';
import request from 'supertest';
import WebSocket from 'ws';
import { gatewaySchema } from '../../src/graphql/schema';
import { freePort, killAll, startTypeScript, waitFor, type Started } from '../app/child-processes';
import { testDatabaseUri, uniqueDatabaseName } from '../helpers/database';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { subscriptionsListening } from '../subscriptions/live-app';
import { relayRequest } from './relay-artifact';

/*
 * docs/live-changes.md's recipe for subscriptions that survive a restart of the service, with Apollo Client,
 * urql and Relay, across a real restart: the service runs as a process of its own (src/main.ts), is
 * stopped with SIGTERM (it closes its WebSockets with 1001), and started again on the same port.
 * While it is down, reconnecting fails with a refused connection: graphql-ws reports that as an
 * error, not a close event, and by default (shouldRetry: close events only, retryAttempts: 5) ends
 * every subscription; the recipe retries everything but the codes that mean "do not".
 */

jest.setTimeout(240_000);

/** docs/live-changes.md's recipe: graphql-ws's client as Apollo Client's GraphQLWsLink, urql and Relay each take it. */
function resilientWsClient(url: string, token: () => string, onReconnected: () => void, options: Partial<ClientOptions> = {}): Client {
  return createClient({
    url,
    // Node 20 has no global WebSocket (browsers and Node 22 do): without one GraphQLWsLink throws "WebSocket is not defined".
    webSocketImpl: WebSocket,
    connectionParams: () => ({ authorization: `Bearer ${token()}` }),
    // Retry whatever ends the socket (a refused connection while the service restarts is an error,
    // not a close event), except a token without the scopes (4403); graphql-ws gives up on 4401,
    // 4429, 4400, 4500, 1008-1011 whatever this says.
    retryAttempts: Infinity,
    shouldRetry: (errOrCloseEvent) => (errOrCloseEvent as { code?: number } | null)?.code !== 4403,
    retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, Math.min(10_000, 500 * 2 ** retries) * (0.5 + Math.random()))),
    on: {
      // Events while the client was away are not replayed: refetch what the page shows.
      connected: (_socket, _payload, wasRetry) => {
        if (wasRetry) onReconnected();
      },
    },
    ...options,
  });
}

const LIST_CHANGED = 'subscription ListChanged($flightId: Int!) { passengerListChanged(flightId: $flightId) { version passengerCount } }';

/** What one library's subscription received, and how often its client came back after a loss. */
class Seen {
  readonly versions: number[] = [];
  readonly errors: unknown[] = [];
  reconnections = 0;
  /** Connection attempts that failed as errors (refused while the service was down). */
  refused = 0;
  completed = false;
  version(value: number) {
    this.versions.push(value);
  }
}

describe('subscriptions that survive a restart of the service (Apollo Client, urql, Relay)', () => {
  const dbName = uniqueDatabaseName('ws_restart');
  const env: Record<string, string> = {};
  let port: number;
  let service: Started;
  let writer: TestApp;
  let token: string;
  let flightId: number;
  const clients: Client[] = [];

  const start = async () => {
    service = startTypeScript('src/main.ts', [], env);
    await waitFor(() => /listening on/.test(service.output()) || service.child.exitCode !== null, 120_000);
    if (service.child.exitCode !== null) throw new Error(`the service did not start: ${service.output()}`);
  };

  beforeAll(async () => {
    port = await freePort();
    Object.assign(env, {
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'development',
      MONGODB_URI: testDatabaseUri(dbName),
      JWT_SECRET: TEST_SECRET,
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'info',
    });
    // The writes come from another process of the service on the same database (they reach the
    // subscribers through the change feed), so they go on while the one serving sockets restarts.
    writer = await startTestApp('ws_restart', {}, { dbName });
    token = await writer.token();
    await createReferenceData(writer);
    flightId = await createFlight(writer, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-11-02T08:00:00Z', arrivalAt: '2026-11-02T09:00:00Z' });
    await start();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await killAll();
    await writer?.database.connection.dropDatabase();
    await writer?.close();
  });

  const push = async (recordId: number) => {
    const response = await request(writer.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', `Bearer ${token}`).send({ created: [passengerRecord(recordId)], modified: [], deleted: [] });
    expect(response.status).toBe(200);
    return response.body.version as number;
  };

  it('keeps each library subscribed across a SIGTERM and a new start on the same port, refetching once back', async () => {
    const wsUrl = `ws://127.0.0.1:${port}/graphql`;
    const httpUrl = `http://127.0.0.1:${port}/graphql`;
    const wsClientFor = (seen: Seen) => {
      const client = resilientWsClient(wsUrl, () => token, () => (seen.reconnections += 1));
      client.on('error', () => (seen.refused += 1));
      clients.push(client);
      return client;
    };

    // Apollo Client 4: subscriptions through GraphQLWsLink, the rest over HTTP.
    const apolloSeen = new Seen();
    const apolloWs = wsClientFor(apolloSeen);
    const apollo = new ApolloClient({
      cache: new InMemoryCache(),
      link: ApolloLink.split(
        ({ query }) => {
          const definition = getMainDefinition(query);
          return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
        },
        new GraphQLWsLink(apolloWs),
        new HttpLink({ uri: httpUrl, headers: { Authorization: `Bearer ${token}` } }),
      ),
    });
    const apolloSubscription = apollo.subscribe<{ passengerListChanged: { version: number } }>({ query: gql(LIST_CHANGED), variables: { flightId } }).subscribe({
      next: (result) => (result.data ? apolloSeen.version(result.data.passengerListChanged.version) : apolloSeen.errors.push(result.error)),
      error: (error) => apolloSeen.errors.push(error),
      complete: () => (apolloSeen.completed = true),
    });

    // urql: its subscriptionExchange forwarding to graphql-ws.
    const urqlSeen = new Seen();
    const urqlWs = wsClientFor(urqlSeen);
    const urql = new UrqlClient({
      url: httpUrl,
      fetchOptions: { headers: { Authorization: `Bearer ${token}` } },
      exchanges: [
        cacheExchange,
        fetchExchange,
        subscriptionExchange({ forwardSubscription: (operation) => ({ subscribe: (sink) => ({ unsubscribe: urqlWs.subscribe({ ...operation, query: operation.query || '' }, sink) }) }) }),
      ],
    });
    const urqlSubscription = urql.subscription<{ passengerListChanged: { version: number } }>(LIST_CHANGED, { flightId }).subscribe((result) =>
      result.data ? urqlSeen.version(result.data.passengerListChanged.version) : urqlSeen.errors.push(result.error),
    );

    // Relay: a network whose subscribe function hands the operation to graphql-ws.
    const relaySeen = new Seen();
    const relayWs = wsClientFor(relaySeen);
    const relay = new Environment({
      network: Network.create(
        async (params, variables) => (await (await fetch(httpUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query: params.text, variables }) })).json()) as GraphQLResponse,
        (params, variables) => Observable.create<GraphQLResponse>((sink) => relayWs.subscribe({ operationName: params.name, query: params.text!, variables }, sink as never)),
      ),
      store: new Store(new RecordSource()),
    });
    const relaySubscription = requestSubscription<{ variables: { flightId: number }; response: { passengerListChanged: { version: number } } }>(relay, {
      subscription: relayRequest(await gatewaySchema(), LIST_CHANGED) as never,
      variables: { flightId },
      onNext: (response) => response && relaySeen.version(response.passengerListChanged.version),
      onError: (error) => relaySeen.errors.push(error),
      onCompleted: () => (relaySeen.completed = true),
    });

    // graphql-ws's defaults (only the WebSocket Node lacks): what the recipe is for.
    const defaultsSeen = new Seen();
    const defaults = createClient({ url: wsUrl, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` } });
    clients.push(defaults);
    defaults.subscribe<{ passengerListChanged: { version: number } }>(
      { query: LIST_CHANGED, variables: { flightId } },
      { next: (result) => defaultsSeen.version(result.data!.passengerListChanged.version), error: (error) => defaultsSeen.errors.push(error), complete: () => (defaultsSeen.completed = true) },
    );

    const all = [apolloSeen, urqlSeen, relaySeen];
    const listening = () => Promise.all([apolloWs, urqlWs, relayWs].map((client) => subscriptionsListening(client)));
    await Promise.all([listening(), subscriptionsListening(defaults)]);
    const before = await push(1);
    await waitFor(() => [...all, defaultsSeen].every((seen) => seen.versions.includes(before)), 30_000);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    // Pushed while no process serves the sockets: not replayed, which is why the recipe refetches.
    await push(2);
    // Down until every client has met a refused connection: what the default settings give up on.
    await waitFor(() => all.every((seen) => seen.refused >= 1) && defaultsSeen.errors.length > 0, 60_000);
    // With the defaults, the refused connection ended the subscription for good.
    expect(defaultsSeen.completed).toBe(false);
    await start();

    await waitFor(() => all.every((seen) => seen.reconnections >= 1), 120_000);
    await listening();
    const after = await push(3);
    await waitFor(() => all.every((seen) => seen.versions.includes(after)), 30_000);
    for (const seen of all) {
      expect(seen.errors).toEqual([]);
      expect(seen.completed).toBe(false);
      expect(seen.versions).toContain(before);
    }

    apolloSubscription.unsubscribe();
    urqlSubscription.unsubscribe();
    relaySubscription.dispose();
  });
});
