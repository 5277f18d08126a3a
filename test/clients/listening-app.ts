import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import type { GatewayApp } from '../../src/app';

/**
 * Real client libraries speak HTTP to a port: the app of createApp, listening on a free one; with
 * `gateway` (what createApp returned), also WebSocket (GraphQL subscriptions) on /graphql.
 */
export async function listen(app: Express, gateway?: Pick<GatewayApp, 'attachWebSockets' | 'closeWebSockets'>): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(app);
  gateway?.attachWebSockets(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      // An upgraded socket is no longer the HTTP server's to close: it would hold close() for ever.
      await gateway?.closeWebSockets();
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
    },
  };
}

/** What a client library sent: a fetch that records each request's method and headers, then fetches. */
export function recordingFetch() {
  const sent: { method: string; url: string; headers: Headers }[] = [];
  const fetcher: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    sent.push({ method: request.method, url: request.url, headers: request.headers });
    return fetch(input, init);
  };
  return { fetch: fetcher, sent };
}

/**
 * The app listening on a Unix socket file, for tests that need an answer the client does not read
 * to stay unfinished. Loopback TCP buffers grow with the kernel's autotuning (up to
 * net.ipv4.tcp_rmem's and tcp_wmem's maxima: 32 MB and 4 MB on some machines), so how much of an
 * unread answer they swallow depends on the machine; a Unix stream socket holds about
 * net.core.wmem_default (about 200 KB), always. Request with `http.request({ socketPath, path })`.
 */
export async function listenOnSocketFile(app: Express): Promise<{ socketPath: string; close(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'gateway-test-'));
  const socketPath = join(directory, 'http.sock');
  const server: Server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  return {
    socketPath,
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
      await rm(directory, { recursive: true, force: true });
    },
  };
}
