import { freePort, killAll, startTypeScript, waitFor } from '../app/child-processes';
import { bearer, closedWith, RawSocket, ResultQueue, startLiveApp, subscriptionsListening, wsClient } from './live-app';

/*
 * Stopping the service closes every WebSocket with 1001 ("going away": graphql-ws clients
 * reconnect, to another process or the restarted one), refuses new ones, and does not wait on them.
 */

const WATCH = 'subscription { timelineChanged(start: "2026-06-08", end: "2026-06-14") { flightId } }';

describe('closing the WebSockets', () => {
  afterAll(() => killAll());

  it('closes open connections with 1001 and answers later upgrades with 503, in process', async () => {
    const live = await startLiveApp('subscriptions_shutdown');
    const client = wsClient(live.wsUrl, bearer(await live.testApp.token(['timeline:read'])));
    const watching = new ResultQueue(client, WATCH);
    const closed = closedWith(client);
    await subscriptionsListening(client);
    await live.testApp.gateway.closeWebSockets();
    expect(await closed).toMatchObject({ code: 1001, reason: 'The service is shutting down: reconnect' });
    expect(await watching.ended()).toMatchObject({ code: 1001 });
    await expect(new RawSocket(live.wsUrl).opened).rejects.toMatchObject({ statusCode: 503 });
    await client.dispose();
    await live.close();
  });

  it('lets the service process stop at once on SIGTERM with a subscription open, exiting 0', async () => {
    const port = await freePort();
    // A long drain budget: were the socket to hold the HTTP server's close, the process would outlive the test.
    const service = startTypeScript('src/main.ts', [], { PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'development', SHUTDOWN_TIMEOUT_MS: '600000', LOG_LEVEL: 'info' });
    await waitFor(() => /listening on/.test(service.output()) || service.child.exitCode !== null, 90_000);
    const token = /Bearer (eyJ[\w-]+\.[\w-]+\.[\w-]+)/.exec(service.output())![1];
    const client = wsClient(`ws://127.0.0.1:${port}/graphql`, bearer(token));
    const watching = new ResultQueue(client, WATCH);
    const closed = closedWith(client);
    await subscriptionsListening(client);
    service.child.kill('SIGTERM');
    expect(await closed).toMatchObject({ code: 1001 });
    expect(await watching.ended()).toMatchObject({ code: 1001 });
    expect(await service.exited).toBe(0);
    expect(service.output()).toMatch(/"msg":"stopped"/);
    expect(service.output()).not.toMatch(/requests cut/);
    await client.dispose();
  });
});
