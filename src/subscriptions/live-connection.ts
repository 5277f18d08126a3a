import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { Principal } from '../auth';
import type { SubscriptionsConfig } from '../config';
import type { Logger } from '../logger';
import { CloseCode, closeSocket } from './close-codes';
import type { ConnectionIdentity } from './connection-auth';

/** setTimeout's longest delay (about 24.8 days); a token may live a year, so its timer is re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

let connectionCounter = 0;

/**
 * One WebSocket and its timers: the server's pings (a peer that misses one is dropped), the
 * token's expiry, the idle time-out, and the bound on bytes waiting to be sent. Every timer is
 * unref'd and cleared when the socket closes.
 */
export class LiveConnection {
  readonly id = `ws${++connectionCounter}`;
  readonly logger: Logger;
  principal: Principal | undefined;
  private alive = true;
  private lastActiveAt = Date.now();
  private readonly keepAlive: NodeJS.Timeout;
  private expiry: NodeJS.Timeout | undefined;
  private idle: NodeJS.Timeout | undefined;
  private hasSubscriptions: () => boolean = () => false;

  constructor(
    readonly socket: WebSocket,
    readonly request: IncomingMessage,
    private readonly limits: SubscriptionsConfig,
    logger: Logger,
  ) {
    this.logger = logger.child({ connection: this.id });
    socket.on('pong', () => (this.alive = true));
    this.keepAlive = setInterval(() => this.ping(), limits.keepAliveMs);
    this.keepAlive.unref();
  }

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /** The token was accepted: its expiry and the idle time-out start counting. */
  accept(identity: ConnectionIdentity, hasSubscriptions: () => boolean): void {
    this.principal = identity.principal;
    this.hasSubscriptions = hasSubscriptions;
    this.armExpiry(identity.endsAt);
    this.armIdle(this.limits.idleTimeoutMs);
  }

  /** A subscription started or ended: the idle time counts from the last one. */
  touch(): void {
    this.lastActiveAt = Date.now();
  }

  /**
   * Sends unless the socket already holds WS_MAX_BUFFERED_BYTES unsent: a peer that reads that
   * slowly is dropped rather than buffered for. Never rejects: a send on a closing socket is moot
   * (graphql-ws ends the subscriptions when it closes).
   */
  send(data: string): Promise<void> {
    if (!this.open) return Promise.resolve();
    if (this.socket.bufferedAmount > this.limits.maxBufferedBytes) {
      this.dropSlowConsumer(`over ${this.limits.maxBufferedBytes} bytes waiting to be sent`);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.socket.send(data, () => resolve()));
  }

  close(code: number, reason: string): void {
    closeSocket(this.socket, code, reason);
  }

  /** Closes with 1013; a peer that has not read up to its close frame one keep-alive interval later is cut. */
  dropSlowConsumer(why = `over ${this.limits.maxQueuedEvents} events behind on one subscription`): void {
    if (!this.open) return;
    this.logger.info({ subject: this.principal?.subject, why }, 'dropping a slow WebSocket consumer');
    this.close(CloseCode.SlowConsumer, `Slow consumer: ${why}; reconnect and refetch`);
    setTimeout(() => this.socket.terminate(), this.limits.keepAliveMs).unref();
  }

  dispose(): void {
    clearInterval(this.keepAlive);
    clearTimeout(this.expiry);
    clearTimeout(this.idle);
  }

  /** A peer that has not answered the previous ping is gone (a dead network path never says so). */
  private ping(): void {
    if (!this.open) return;
    if (!this.alive) {
      this.logger.debug('no pong since the last ping: dropping the connection');
      this.socket.terminate();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  private armExpiry(endsAt: number): void {
    const remaining = endsAt - Date.now();
    if (remaining <= 0) {
      this.close(CloseCode.Unauthorized, 'Invalid bearer token: the token has expired (exp); reconnect with a new token');
      return;
    }
    this.expiry = setTimeout(() => this.armExpiry(endsAt), Math.min(remaining, MAX_TIMER_MS));
    this.expiry.unref();
  }

  private armIdle(delayMs: number): void {
    this.idle = setTimeout(() => {
      if (!this.open) return;
      const now = Date.now();
      if (this.hasSubscriptions()) this.lastActiveAt = now;
      const idleFor = now - this.lastActiveAt;
      if (idleFor >= this.limits.idleTimeoutMs) {
        this.close(CloseCode.Idle, `Idle: no subscription for ${Math.round(idleFor / 1000)} s`);
        return;
      }
      this.armIdle(this.limits.idleTimeoutMs - idleFor);
    }, delayMs);
    this.idle.unref();
  }
}
