import { bearer, RawSocket, startLiveApp, type LiveApp } from './live-app';

/* An anonymous client cannot hold WebSockets by the thousand: per address, only so many may await authentication. */
describe('WebSockets awaiting connection_init, per client address', () => {
  let live: LiveApp;
  let token: string;
  const open: RawSocket[] = [];

  beforeAll(async () => {
    live = await startLiveApp('ws_pending', { WS_MAX_PENDING_CONNECTIONS_PER_ADDRESS: '3' });
    token = await live.testApp.token();
  });
  afterAll(async () => {
    for (const socket of open) socket.socket.terminate();
    await live?.close();
  });
  const connect = () => {
    const socket = new RawSocket(live.wsUrl);
    open.push(socket);
    return socket;
  };

  it('answers 429 to one upgrade more, and admits again once one is authenticated or gone', async () => {
    const waiting = [connect(), connect(), connect()];
    await Promise.all(waiting.map((socket) => socket.opened));

    const refused = connect();
    await expect(refused.opened).rejects.toMatchObject({ statusCode: 429 });

    // Authenticated: no longer pending, so its place is free.
    expect(await waiting[0].init(bearer(token))).toEqual({ type: 'connection_ack' });
    const admitted = connect();
    await admitted.opened;
    await expect(connect().opened).rejects.toMatchObject({ statusCode: 429 });

    // Gone (closed by the client before authenticating): its place is free too.
    waiting[1].socket.close();
    await waiting[1].closed;
    const afterClose = connect();
    await afterClose.opened;

    // The authenticated connection still works and is not counted.
    waiting[0].send({ id: 'x', type: 'subscribe', payload: { query: '{' } });
    expect(await waiting[0].next()).toMatchObject({ id: 'x', type: 'error' });
  });
});
