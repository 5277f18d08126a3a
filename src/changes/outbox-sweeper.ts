import type { FlightModel } from '../flights/flight.model';
import type { Logger } from '../logger';
import type { PassengerListModel } from '../passengers/passenger-list.model';
import type { ChangeEventModel } from './change-event.model';
import type { ChangePublisher, OutboxSource } from './change-publisher';
import { OUTBOX_GRACE_MS } from './outbox';

export interface OutboxSweeperDeps {
  publisher: ChangePublisher;
  flights: FlightModel;
  passengerLists: PassengerListModel;
  changeEvents: ChangeEventModel;
  logger: Logger;
  /** Milliseconds between sweeps. */
  intervalMs: number;
  /** Published events older than this are removed once their webhooks are dispatched. */
  retentionMs: number;
}

/** Most documents one sweep publishes; the next sweep takes the rest. */
const SWEEP_BATCH = 200;

/**
 * Publishes events their writer committed but did not publish (it crashed, or the database failed
 * between the write and the publication), and forgets published events past their retention. Every
 * process sweeps; the publisher makes concurrent sweeps harmless.
 */
export class OutboxSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: OutboxSweeperDeps) {}

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One sweep now (tests and start-up). */
  async sweep(): Promise<void> {
    const before = new Date(Date.now() - OUTBOX_GRACE_MS);
    await this.publishFrom('passengerList', this.deps.passengerLists as unknown as FlightModel, before);
    await this.publishFrom('flight', this.deps.flights, before);
    await this.deps.changeEvents.deleteMany({ at: { $lt: new Date(Date.now() - this.deps.retentionMs) }, webhooksDispatched: true }).exec();
  }

  private async publishFrom(source: OutboxSource, model: FlightModel, before: Date): Promise<void> {
    const stale = await model.find({ 'outbox.at': { $lt: before } }, { _id: 0, flightId: 1 }).limit(SWEEP_BATCH).lean<{ flightId: number }[]>().exec();
    for (const { flightId } of stale) await this.deps.publisher.publishOrThrow(source, flightId);
  }

  private schedule(): void {
    if (this.stopped) return;
    // Jittered, so processes started together do not sweep in step.
    this.timer = setTimeout(() => {
      this.running = this.sweep()
        .catch((error: unknown) => {
          if (!this.stopped) this.deps.logger.warn({ err: { message: (error as Error).message } }, 'outbox sweep failed; the next one retries');
        })
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.deps.intervalMs * (0.75 + Math.random() / 2));
    this.timer.unref();
  }
}
