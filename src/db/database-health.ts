import type { MongoClient, ServerHeartbeatFailedEvent, ServerHeartbeatSucceededEvent } from 'mongodb';
import type { Logger } from '../logger';

/** Checks in a row a server must fail to count as down: one slow answer on a loaded machine is not an outage. */
const FAILED_CHECKS_TO_BE_DOWN = 2;

/**
 * Whether the database is known to be down, from what the driver's own monitor sees: each server's
 * recent heartbeats. Down until the first connection succeeded; then down while every server failed
 * its last two checks, up again at the first check that succeeds (the monitor checks every
 * DB_HEARTBEAT_FREQUENCY_MS). A single operation's network error is not enough: the driver checks
 * the server at once after one, and only failed checks say the server is gone.
 *
 * While down, data requests answer 503 at once instead of each waiting for a server the driver
 * will not find (DB_SERVER_SELECTION_TIMEOUT_MS), and /readyz answers 503 without a ping.
 */
export class DatabaseHealth {
  private connected = false;
  /** Checks each server (by address) failed in a row since its last success. */
  private readonly servers = new Map<string, number>();
  private downSince: number | undefined = Date.now();

  constructor(private readonly logger?: Logger) {}

  /** True before the first connection and while no server answers the driver's checks. */
  get knownDown(): boolean {
    return this.downSince !== undefined;
  }

  /** Milliseconds since the database became known to be down (0 when it is not). */
  downForMs(now = Date.now()): number {
    return this.downSince === undefined ? 0 : now - this.downSince;
  }

  /** Follows `client`'s heartbeats from now on; call it once the client connected. */
  watch(client: MongoClient): void {
    this.connected = true;
    this.servers.clear();
    client.on('serverHeartbeatSucceeded', (event: ServerHeartbeatSucceededEvent) => this.heard(event.connectionId, true));
    client.on('serverHeartbeatFailed', (event: ServerHeartbeatFailedEvent) => this.heard(event.connectionId, false));
    this.update();
  }

  private heard(address: string, answered: boolean): void {
    this.servers.set(address, answered ? 0 : (this.servers.get(address) ?? 0) + 1);
    this.update();
  }

  private update(): void {
    const down = !this.connected || (this.servers.size > 0 && [...this.servers.values()].every((failed) => failed >= FAILED_CHECKS_TO_BE_DOWN));
    if (down && this.downSince === undefined) {
      this.downSince = Date.now();
      this.logger?.warn('the database does not answer the driver’s checks: data requests answer 503 at once until it does');
    } else if (!down && this.downSince !== undefined) {
      const wasConnected = this.servers.size > 0;
      this.downSince = undefined;
      if (wasConnected) this.logger?.info('the database answers the driver’s checks again: data requests are served');
    }
  }
}
