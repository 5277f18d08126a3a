import type { FormattedExecutionResult } from 'graphql';
import { createClient, type Client, type ClientOptions } from 'graphql-ws';
import WebSocket from 'ws';
import { listen } from '../clients/listening-app';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** The app of createApp on a port, serving HTTP and WebSocket, as main.ts runs it. */
export interface LiveApp {
  testApp: TestApp;
  /** http://127.0.0.1:<port> */
  url: string;
  /** ws://127.0.0.1:<port>/graphql */
  wsUrl: string;
  close(): Promise<void>;
}

export async function startLiveApp(name: string, env: Record<string, string> = {}): Promise<LiveApp> {
  const testApp = await startTestApp(name, env);
  const server = await listen(testApp.app, testApp.gateway);
  return {
    testApp,
    url: server.url,
    wsUrl: `${server.url.replace(/^http/, 'ws')}/graphql`,
    async close() {
      await server.close();
      await testApp.close();
    },
  };
}

/** graphql-ws's own client on Node (it needs `ws` as its WebSocket), sending `connectionParams`; no retries unless asked. */
export function wsClient(wsUrl: string, connectionParams: ClientOptions['connectionParams'], options: Partial<ClientOptions> = {}): Client {
  return createClient({ url: wsUrl, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, ...options });
}

/**
 * A subscription read one result at a time: `next()` resolves with the next result the server
 * sent, or rejects with the close event or error that ended it. No timers: jest's time-out is the
 * only limit, and absence is shown by order (a later event arriving first), never by waiting.
 */
export class ResultQueue<T = Record<string, unknown>> {
  private readonly results: FormattedExecutionResult<T, unknown>[] = [];
  private readonly waiters: Array<{ resolve(result: FormattedExecutionResult<T, unknown>): void; reject(error: unknown): void }> = [];
  private failure: unknown;
  /** True once the server completed the subscription. */
  completed = false;
  readonly unsubscribe: () => void;

  constructor(client: Client, query: string, variables: Record<string, unknown> = {}) {
    this.unsubscribe = client.subscribe<T>(
      { query, variables },
      {
        next: (result) => {
          const waiter = this.waiters.shift();
          if (waiter) waiter.resolve(result);
          else this.results.push(result);
        },
        error: (error) => this.fail(error),
        complete: () => {
          this.completed = true;
          this.fail(new Error('completed'));
        },
      },
    );
  }

  next(): Promise<FormattedExecutionResult<T, unknown>> {
    const queued = this.results.shift();
    if (queued) return Promise.resolve(queued);
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** The next result's data, failing on errors. */
  async data(): Promise<T> {
    const result: FormattedExecutionResult<T, unknown> = await this.next();
    if (result.errors) throw new Error(`unexpected errors: ${JSON.stringify(result.errors)}`);
    return result.data as T;
  }

  /** Resolves with how the subscription ended: the close event, the error list, or 'completed'. */
  ended(): Promise<unknown> {
    return new Promise((resolve) => {
      const settle = (): Promise<void> => this.next().then(settle, resolve);
      settle();
    });
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    for (const waiter of this.waiters.splice(0)) waiter.reject(this.failure);
  }
}

/** The close event a graphql-ws client reports when the server closes (or never opens) its socket. */
export interface CloseEventLike {
  code: number;
  reason: string;
}

/** Connects, and resolves with how the server ended the connection (the client does not retry). */
export function closedWith(client: Client): Promise<CloseEventLike> {
  return new Promise((resolve) => {
    client.on('closed', (event) => resolve(event as CloseEventLike));
  });
}

/** A raw WebSocket speaking graphql-transport-ws by hand, for what no client library would send. */
export class RawSocket {
  readonly socket: WebSocket;
  readonly messages: Record<string, unknown>[] = [];
  private readonly waiters: Array<(message: Record<string, unknown>) => void> = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<CloseEventLike>;

  constructor(url: string, options: { protocol?: string | string[]; autoPong?: boolean } = {}) {
    this.socket = new WebSocket(url, options.protocol ?? 'graphql-transport-ws', { autoPong: options.autoPong ?? true });
    this.socket.on('error', () => undefined);
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('unexpected-response', (request, response) => {
        reject(Object.assign(new Error(`HTTP ${response.statusCode}`), { statusCode: response.statusCode }));
        request.destroy();
      });
      this.socket.once('close', () => reject(new Error('closed before the handshake completed')));
    });
    this.opened.catch(() => undefined);
    this.closed = new Promise((resolve) => this.socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
    this.socket.on('message', (data) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(String(data));
      } catch {
        message = { unparsed: String(data) };
      }
      const waiter = this.waiters.shift();
      if (waiter) waiter(message);
      else this.messages.push(message);
    });
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' || Buffer.isBuffer(message) ? message : JSON.stringify(message));
  }

  /** The next message the server sent. */
  next(): Promise<Record<string, unknown>> {
    const queued = this.messages.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Opens and completes the graphql-ws handshake with `payload`. */
  async init(payload: unknown): Promise<Record<string, unknown>> {
    await this.opened;
    this.send({ type: 'connection_init', payload });
    return this.next();
  }
}

/**
 * Resolves once the server is listening for every subscription this client started before: it
 * sends a subscribe message that fails at once (a parse error) and waits for the refusal. The
 * server handles a connection's messages in order, and a subscription starts listening to the
 * change feed before its first I/O, so by the time any answer travels back, the earlier ones listen.
 */
export function subscriptionsListening(client: Client): Promise<void> {
  return new Promise((resolve) => client.subscribe({ query: '{' }, { next: () => undefined, error: () => resolve(), complete: () => resolve() }));
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
