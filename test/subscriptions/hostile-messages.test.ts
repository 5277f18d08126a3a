import fc from 'fast-check';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { bearer, RawSocket, ResultQueue, startLiveApp, subscriptionsListening, wsClient, type LiveApp } from './live-app';

/*
 * What a client may send over the socket, however malformed: the connection it arrives on is
 * closed with the protocol's code for it (or the message is answered), never with 4500, and the
 * service goes on serving everyone else. Unhandled rejections in this process would be the
 * service's (it runs here): they fail the test.
 */

const WATCH = 'subscription { timelineChanged(start: "2026-06-08", end: "2026-06-14") { flightId } }';

describe('hostile WebSocket messages', () => {
  let live: LiveApp;
  let auth: Record<string, string>;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    live = await startLiveApp('subscriptions_hostile', { WS_MAX_MESSAGE_BYTES: '4096' });
    await createReferenceData(live.testApp);
    auth = bearer(await live.testApp.token(['timeline:read', 'passengers:read']));
  });
  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    await live?.close();
  });
  afterEach(() => expect(rejections).toEqual([]));

  /** An acknowledged raw connection. */
  const connected = async () => {
    const raw = new RawSocket(live.wsUrl);
    expect(await raw.init(auth)).toEqual({ type: 'connection_ack' });
    return raw;
  };

  it.each([
    ['text that is not JSON', 'not json'],
    ['a JSON value that is not a message', '[1,2,3]'],
    ['a message without a type', '{}'],
    ['an unknown type', '{"type":"hello"}'],
    ['a subscribe without an id', '{"type":"subscribe","payload":{"query":"subscription { x }"}}'],
    ['a subscribe whose query is not a string', '{"id":"1","type":"subscribe","payload":{"query":42}}'],
    ['a subscribe whose variables are a string', '{"id":"1","type":"subscribe","payload":{"query":"subscription { x }","variables":"x"}}'],
    ['a message only servers send', '{"id":"1","type":"next","payload":{"data":{}}}'],
    ['an error message', '{"id":"1","type":"error","payload":[{"message":"x"}]}'],
    ['binary garbage', Buffer.from([0xff, 0x00, 0x13, 0x37])],
  ])('closes with 4400 on %s', async (_name, message) => {
    const raw = await connected();
    raw.send(message);
    expect(await raw.closed).toEqual({ code: 4400, reason: 'Invalid message received' });
  });

  it('closes with 4409 on a second subscription under the same id, and 4429 on a second connection_init (graphql-ws)', async () => {
    const duplicate = await connected();
    duplicate.send({ id: 'same', type: 'subscribe', payload: { query: WATCH } });
    duplicate.send({ id: 'same', type: 'subscribe', payload: { query: WATCH } });
    expect(await duplicate.closed).toEqual({ code: 4409, reason: 'Subscriber for same already exists' });
    const twice = await connected();
    twice.send({ type: 'connection_init', payload: auth });
    expect(await twice.closed).toEqual({ code: 4429, reason: 'Too many initialisation requests' });
  });

  it('closes with 1007 on text that is not UTF-8, and 1009 on a message over WS_MAX_MESSAGE_BYTES', async () => {
    const raw = await connected();
    // A text frame (fin, opcode 1) carrying an invalid UTF-8 byte, sent through ws's own framing.
    raw.socket.send(Buffer.from([0xc3, 0x28]), { binary: false });
    expect((await raw.closed).code).toBe(1007);
    const large = await connected();
    large.send({ id: '1', type: 'subscribe', payload: { query: WATCH, variables: { padding: 'x'.repeat(5000) } } });
    expect((await large.closed).code).toBe(1009);
  });

  it('answers pings, ignores a complete for an unknown id, and keeps serving', async () => {
    const raw = await connected();
    raw.send({ type: 'ping', payload: { at: 1 } });
    expect(await raw.next()).toEqual({ type: 'pong', payload: { at: 1 } });
    raw.send({ id: 'nobody', type: 'complete' });
    raw.send({ id: 'w', type: 'subscribe', payload: { query: WATCH } });
    raw.send({ type: 'ping' });
    expect(await raw.next()).toEqual({ type: 'pong' });
    const flightId = await createFlight(live.testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-06-10T08:00:00Z', arrivalAt: '2026-06-10T09:00:00Z' });
    expect(await raw.next()).toEqual({ id: 'w', type: 'next', payload: { data: { timelineChanged: { flightId } } } });
    raw.socket.close();
  });

  it('survives arbitrary messages (fast-check, fixed seed): only protocol close codes, and the service still serves a proper client', async () => {
    const message = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.json({ maxDepth: 3 }),
      fc.record({ type: fc.constantFrom('connection_init', 'subscribe', 'complete', 'ping', 'pong', 'next', 'error', 'connection_ack'), id: fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.constant(undefined)), payload: fc.anything({ maxDepth: 2 }) }).map((value) => JSON.stringify(value)),
      fc
        .record({
          query: fc.oneof(fc.string({ maxLength: 100 }), fc.constantFrom(WATCH, 'subscription { passengerListChanged(flightId: 1) { version } }', '{ resources { id } }', 'subscription($a: String!) { timelineChanged(start: $a, end: $a) { flightId } }')),
          variables: fc.oneof(fc.constant(undefined), fc.dictionary(fc.string({ maxLength: 3 }), fc.anything({ maxDepth: 2 }))),
          operationName: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 10 })),
        })
        .map((payload) => JSON.stringify({ id: 'f', type: 'subscribe', payload })),
    );
    const allowed = new Set([4400, 4409, 4429, 1007]);
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 4 }), async (messages) => {
        const raw = await connected();
        for (const each of messages) raw.send(each);
        // Ends the exchange: a ping the server answers unless it closed the socket before reaching it.
        raw.send({ type: 'ping', payload: { end: true } });
        const outcome = await Promise.race([
          raw.closed,
          (async () => {
            for (;;) {
              const answer = await raw.next();
              if (answer.type === 'pong' && (answer.payload as { end?: boolean } | undefined)?.end) return 'open';
            }
          })(),
        ]);
        if (typeof outcome !== 'string') expect(allowed).toContain(outcome.code);
        raw.socket.close();
      }),
      { seed: 20261124, numRuns: 150 },
    );
    const client = wsClient(live.wsUrl, auth);
    const watching = new ResultQueue<{ timelineChanged: { flightId: number } }>(client, WATCH);
    await subscriptionsListening(client);
    const flightId = await createFlight(live.testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-06-10T08:00:00Z', arrivalAt: '2026-06-10T09:00:00Z' });
    expect((await watching.data()).timelineChanged.flightId).toBe(flightId);
    await client.dispose();
  });
});
