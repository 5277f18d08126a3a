import type { Client } from 'graphql-ws';
import { PushPassengerListDocument, UpdateFlightDocument } from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { bearer, RawSocket, ResultQueue, startLiveApp, subscriptionsListening, wsClient, type LiveApp } from './live-app';

/*
 * Each limit of the WebSocket transport, set low on a real app and met by a real client: graphql-ws's
 * own where it can be, a raw socket where a library would not misbehave that way.
 */

const WATCH = 'subscription { timelineChanged(start: "2026-06-08", end: "2026-06-14") { flightId change } }';
const INSIDE = { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-06-10T08:00:00Z', arrivalAt: '2026-06-10T09:00:00Z' } as const;

describe('WebSocket limits', () => {
  let live: LiveApp;
  const clients: Client[] = [];
  const client = async (subject: string, options: Parameters<typeof wsClient>[2] = {}) => {
    const created = wsClient(live.wsUrl, bearer(await live.testApp.token(['timeline:read'], subject)), options);
    clients.push(created);
    return created;
  };

  beforeAll(async () => {
    live = await startLiveApp('subscriptions_limits', {
      WS_MAX_CONNECTIONS_PER_SUBJECT: '2',
      WS_MAX_SUBSCRIPTIONS_PER_CONNECTION: '2',
      WS_CONNECTION_INIT_TIMEOUT_MS: '300',
      WS_IDLE_TIMEOUT_MS: '1000',
      WS_KEEPALIVE_MS: '200',
      WS_MAX_MESSAGE_BYTES: '2048',
    });
    await createReferenceData(live.testApp);
  });
  afterAll(async () => {
    await Promise.all(clients.map((each) => each.dispose()));
    await live?.close();
  });

  it('closes a token subject’s connection beyond WS_MAX_CONNECTIONS_PER_SUBJECT with 4429, and lets other subjects in', async () => {
    const sockets = [new RawSocket(live.wsUrl), new RawSocket(live.wsUrl), new RawSocket(live.wsUrl), new RawSocket(live.wsUrl)];
    const [mine, other] = [bearer(await live.testApp.token(['timeline:read'], 'crowded')), bearer(await live.testApp.token(['timeline:read'], 'someone-else'))];
    expect(await sockets[0].init(mine)).toEqual({ type: 'connection_ack' });
    expect(await sockets[1].init(mine)).toEqual({ type: 'connection_ack' });
    sockets[2].init(mine).catch(() => undefined);
    expect(await sockets[2].closed).toEqual({ code: 4429, reason: 'Too many connections: this token subject holds 2 already' });
    expect(await sockets[3].init(other)).toEqual({ type: 'connection_ack' });
    // A closed connection frees its place.
    sockets[0].socket.close();
    await sockets[0].closed;
    const again = new RawSocket(live.wsUrl);
    sockets.push(again);
    const answer = await again.init(mine);
    // The server may see the new connection_init a moment before the old socket's close.
    if (answer.type !== 'connection_ack') expect(await again.closed).toMatchObject({ code: 4429 });
    sockets.forEach((socket) => socket.socket.close());
  });

  it('answers a subscription beyond WS_MAX_SUBSCRIPTIONS_PER_CONNECTION with TOO_MANY_REQUESTS; completing one frees its place', async () => {
    const ws = await client('many-subscriptions');
    const first = new ResultQueue<{ timelineChanged: { flightId: number } }>(ws, WATCH);
    const second = new ResultQueue(ws, WATCH);
    const third = new ResultQueue(ws, WATCH);
    expect(await third.ended()).toEqual([
      { message: 'Too many subscriptions on this connection: at most 2 run at once; complete one first', extensions: { code: 'TOO_MANY_REQUESTS' } },
    ]);
    second.unsubscribe();
    const fourth = new ResultQueue<{ timelineChanged: { flightId: number } }>(ws, WATCH);
    await subscriptionsListening(ws).catch(() => undefined);
    const flightId = await createFlight(live.testApp, INSIDE);
    expect((await first.data()).timelineChanged.flightId).toBe(flightId);
    expect((await fourth.data()).timelineChanged.flightId).toBe(flightId);
  });

  it('closes with 4408 a socket that sends no connection_init within WS_CONNECTION_INIT_TIMEOUT_MS', async () => {
    const raw = new RawSocket(live.wsUrl);
    expect(await raw.closed).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
  });

  it('closes with 1000 a connection without a subscription for WS_IDLE_TIMEOUT_MS, not one with a subscription', async () => {
    // Opened first, so its idle check comes first: it has a subscription, and stays.
    const busy = await client('busy');
    const watching = new ResultQueue<{ timelineChanged: { flightId: number } }>(busy, WATCH);
    await subscriptionsListening(busy);
    const idle = new RawSocket(live.wsUrl);
    expect(await idle.init(bearer(await live.testApp.token(['timeline:read'], 'idle')))).toEqual({ type: 'connection_ack' });
    expect(await idle.closed).toEqual({ code: 1000, reason: 'Idle: no subscription for 1 s' });
    const flightId = await createFlight(live.testApp, INSIDE);
    expect((await watching.data()).timelineChanged.flightId).toBe(flightId);
  });

  it('drops a peer that stops answering pings (a dead network path), and keeps one that answers', async () => {
    const silent = new RawSocket(live.wsUrl, { autoPong: false });
    const answering = new RawSocket(live.wsUrl);
    expect(await silent.init(bearer(await live.testApp.token(['timeline:read'], 'silent')))).toEqual({ type: 'connection_ack' });
    expect(await answering.init(bearer(await live.testApp.token(['timeline:read'], 'answering')))).toEqual({ type: 'connection_ack' });
    answering.send({ id: 'w', type: 'subscribe', payload: { query: WATCH } });
    // Terminated without a close frame: the client sees an abnormal closure.
    expect((await silent.closed).code).toBe(1006);
    const flightId = await createFlight(live.testApp, INSIDE);
    expect(await answering.next()).toEqual({ id: 'w', type: 'next', payload: { data: { timelineChanged: { flightId, change: 'ENTERED' } } } });
    answering.socket.close();
  });

  it('closes with 1009 a client message longer than WS_MAX_MESSAGE_BYTES', async () => {
    const raw = new RawSocket(live.wsUrl);
    await raw.init(bearer(await live.testApp.token(['timeline:read'], 'talkative')));
    raw.send({ id: '1', type: 'subscribe', payload: { query: `subscription { timelineChanged(start: "${'x'.repeat(3000)}", end: "b") { flightId } }` } });
    expect((await raw.closed).code).toBe(1009);
  });

  it('answers WebSocket upgrades elsewhere than /graphql with 404, and closes a socket without graphql-transport-ws with 4406', async () => {
    await expect(new RawSocket(live.wsUrl.replace(/graphql$/, 'api/broker/v0')).opened).rejects.toMatchObject({ statusCode: 404 });
    const noProtocol = new RawSocket(live.wsUrl, { protocol: [] });
    expect(await noProtocol.closed).toEqual({ code: 4406, reason: 'Subprotocol not acceptable' });
    // subscriptions-transport-ws's protocol: the handshake names none, which that client refuses.
    const legacy = new RawSocket(live.wsUrl, { protocol: 'graphql-ws' });
    await expect(legacy.opened).rejects.toThrow();
  });
});

describe('the request guards of /graphql, on each subscribe message', () => {
  let live: LiveApp;
  let ws: Client;
  const clients: Client[] = [];

  beforeAll(async () => {
    live = await startLiveApp('subscriptions_guards', {
      GRAPHQL_MAX_COST: '10',
      GRAPHQL_MAX_DEPTH: '3',
      GRAPHQL_MAX_ALIASES: '3',
      GRAPHQL_MAX_TOKENS: '200',
      INPUT_MAX_STRING_LENGTH: '100',
      RATE_LIMIT_PER_MINUTE: '30',
    });
    ws = wsClient(live.wsUrl, bearer(await live.testApp.token(['timeline:read'], 'guarded')));
    clients.push(ws);
  });
  afterAll(async () => {
    await Promise.all(clients.map((each) => each.dispose()));
    await live?.close();
  });
  const refusal = (query: string, variables: Record<string, unknown> = {}) => new ResultQueue(ws, query, variables).ended();

  it('refuses a document over GRAPHQL_MAX_TOKENS, or unparsable, as GRAPHQL_PARSE_FAILED', async () => {
    expect(await refusal(`subscription { timelineChanged(start: "a", end: "b") { ${'flightId '.repeat(200)} } }`)).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/^Syntax Error: Document contains more th(an|at) 200 tokens/), extensions: { code: 'GRAPHQL_PARSE_FAILED' } }),
    ]);
    expect(await refusal('subscription {')).toEqual([expect.objectContaining({ extensions: { code: 'GRAPHQL_PARSE_FAILED' } })]);
  });

  it('refuses depth, aliases and unknown fields as GRAPHQL_VALIDATION_FAILED', async () => {
    const deep = 'subscription { timelineChanged(start: "2026-06-08", end: "2026-06-14") { flight { departure { airport { icao } } } } }';
    expect(await refusal(deep)).toEqual([expect.objectContaining({ message: expect.stringMatching(/depth/i), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })]);
    const aliased = 'subscription { timelineChanged(start: "2026-06-08", end: "2026-06-14") { a: flightId b: flightId c: flightId d: flightId } }';
    expect(await refusal(aliased)).toEqual([expect.objectContaining({ message: expect.stringMatching(/aliases/i), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })]);
    expect(await refusal('subscription { timelineChanged(start: "a", end: "b") { nope } }')).toEqual([
      expect.objectContaining({ message: expect.stringContaining('Cannot query field "nope"'), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
    ]);
  });

  it('refuses queries and mutations: they go to POST /graphql', async () => {
    expect(await refusal('{ resources { id } }')).toEqual([
      { message: 'Only subscriptions are served over WebSocket: send this query to POST /graphql', extensions: { code: 'BAD_REQUEST', details: [{ field: 'query', message: 'expected a subscription' }] } },
    ]);
  });

  it('refuses oversized and uncoercible variables before running anything', async () => {
    const query = 'subscription($s: String!, $e: String!) { timelineChanged(start: $s, end: $e) { flightId } }';
    expect(await refusal(query, { s: 'x'.repeat(101), e: 'b' })).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }) })]);
    expect(await refusal(query, { s: 5, e: 'b' })).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) })]);
  });

  it('refuses a document with two operations and no operationName', async () => {
    const two = `subscription A { timelineChanged(start: "2026-06-08", end: "2026-06-14") { flightId } } subscription B { timelineChanged(start: "2026-06-08", end: "2026-06-14") { change } }`;
    expect(await refusal(two)).toEqual([expect.objectContaining({ message: 'The document has 2 operations: say which to run with operationName', extensions: expect.objectContaining({ code: 'BAD_REQUEST' }) })]);
  });

  it('refuses a selection over GRAPHQL_MAX_COST with QUERY_TOO_COMPLEX naming both numbers', async () => {
    const query = 'subscription { timelineChanged(start: "2026-06-08", end: "2026-06-14") { flightId flightGlobalId change eventType seq at flight { flightId flightNumber resourceId } } }';
    const [error] = (await refusal(query)) as { extensions: { code: string; details: { cost: number; maxCost: number }[] } }[];
    expect(error.extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(error.extensions.details[0]).toMatchObject({ maxCost: 10, cost: expect.any(Number) });
    expect(error.extensions.details[0].cost).toBeGreaterThan(10);
  });

  it('counts subscribe messages per token subject and minute (RATE_LIMIT_PER_MINUTE) and refuses the rest with TOO_MANY_REQUESTS', async () => {
    const hasty = wsClient(live.wsUrl, bearer(await live.testApp.token(['timeline:read'], 'hasty')));
    clients.push(hasty);
    const outcomes = [];
    for (let i = 0; i < 31; i++) outcomes.push(await new ResultQueue(hasty, 'subscription {').ended());
    expect(outcomes.slice(0, 30).every((errors) => (errors as { extensions: { code: string } }[])[0].extensions.code === 'GRAPHQL_PARSE_FAILED')).toBe(true);
    expect(outcomes[30]).toEqual([{ message: expect.stringMatching(/^More than 30 subscribe messages in a minute from this token subject: retry after \d+ seconds$/), extensions: { code: 'TOO_MANY_REQUESTS' } }]);
  });
});

describe('a slow consumer', () => {
  let live: LiveApp;

  beforeAll(async () => {
    live = await startLiveApp('subscriptions_slow', { WS_MAX_QUEUED_EVENTS: '2', WS_KEEPALIVE_MS: '60000' });
    await createReferenceData(live.testApp);
  });
  afterAll(async () => {
    await live?.close();
  });

  it('is closed with 1013 once it is WS_MAX_QUEUED_EVENTS behind, while a fast one on the same events gets every one', async () => {
    const flightId = await createFlight(live.testApp, INSIDE);
    // A full list, selected three times, makes each event's message large (about 1.5 MB): the socket's buffers fill in a few events.
    const created = Array.from({ length: 2000 }, (_, index) => passengerRecord(index + 1));
    const pushed = await live.testApp.graphql(PushPassengerListDocument, { flightId, changes: { created, modified: [], deleted: [] } as never, expectedVersion: null, expectedVersions: null, idempotencyKey: null });
    expect(pushed.body.errors).toBeUndefined();

    const fields = 'id recordId surname name luogonascita nazionalita typedoc numberdoc date_born scadenza issuingstate email phone gender';
    const heavy = `subscription { timelineChanged(start: "2026-06-08", end: "2026-06-14") { flightId flight { a: passengers { ${fields} } b: passengers { ${fields} } c: passengers { ${fields} } } } }`;
    const token = bearer(await live.testApp.token());
    const slow = new RawSocket(live.wsUrl);
    expect(await slow.init(token)).toEqual({ type: 'connection_ack' });
    slow.send({ id: 'heavy', type: 'subscribe', payload: { query: heavy } });
    const fast = wsClient(live.wsUrl, token);
    const everything = new ResultQueue<{ timelineChanged: { flightId: number } }>(fast, WATCH);
    await subscriptionsListening(fast);
    // The slow client stops reading; each update then adds one large message to its backlog.
    slow.socket.pause();
    const updates = 20;
    for (let i = 0; i < updates; i++) {
      const { body } = await live.testApp.graphql(UpdateFlightDocument, { id: flightId, input: { flightNumber: `IFL${100 + i}` } as never });
      expect(body.errors).toBeUndefined();
      expect((await everything.data()).timelineChanged.flightId).toBe(flightId);
    }
    slow.socket.resume();
    expect(await slow.closed).toEqual({ code: 1013, reason: 'Slow consumer: over 2 events behind on one subscription; reconnect and refetch' });
    // It got the events it read before falling behind, in order, and none after.
    const received = slow.messages.filter((message) => message.type === 'next');
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(updates);
    await fast.dispose();
  });

});
