import type { Logger } from '../logger';
import type { ChangeEvent, ChangeFeed } from './change-event';
import { toChangeEvent, type ChangeEventDocument, type ChangeEventModel } from './change-event.model';

export interface ChangeFeedReaderOptions {
  /** Milliseconds between reads when nothing woke the reader (events of other processes). */
  pollMs: number;
  /**
   * How long a hole in the sequence is waited for before it is passed over: a number is taken just
   * before its event is inserted, so a hole is normally an insert in flight; one that never fills
   * is a publisher that died between the two.
   */
  gapWaitMs?: number;
  /** Most events read per query. */
  batchSize?: number;
}

/**
 * Every process's view of the change feed: reads `change_events` in sequence order and hands each
 * event to the local listeners (subscriptions, the webhook dispatcher's wake-up). It starts at the
 * end of the feed: listeners hear what is published after they listen. Reading is a cheap indexed
 * query repeated every `pollMs`, and at once when this process published (`wake`).
 */
export class ChangeFeedReader implements ChangeFeed {
  private readonly listeners = new Set<(event: ChangeEvent) => void>();
  private last: number | undefined;
  private gapSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private again = false;
  private holePending = false;
  private stopped = false;
  private failures = 0;

  constructor(
    private readonly changeEvents: ChangeEventModel,
    private readonly logger: Logger,
    private readonly options: ChangeFeedReaderOptions,
  ) {}

  listen(listener: (event: ChangeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads from the current end of the feed on; resolves once the position is known. */
  async start(): Promise<void> {
    // Without a connection yet (a real server down at start-up), the first read that succeeds takes
    // the end of the feed then, rather than holding the start for the database's time-outs.
    if (this.changeEvents.db.readyState === 1) {
      try {
        this.last = await this.lastSequence();
      } catch {
        // As above: the next read tries again.
      }
    }
    this.schedule(this.options.pollMs);
  }

  /** Reads now (this process just published). */
  wake(): void {
    if (this.stopped) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.listeners.clear();
    await this.reading;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.reading = this.read().finally(() => {
        this.reading = undefined;
        const { pollMs } = this.options;
        const next = this.failures ? Math.min(5000, pollMs * 2 ** this.failures) : this.again ? 0 : this.holePending ? Math.min(20, pollMs) : pollMs;
        this.again = false;
        this.schedule(next);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async read(): Promise<void> {
    try {
      if (this.last === undefined) this.last = await this.lastSequence();
      const batch = this.options.batchSize ?? 500;
      for (;;) {
        const docs = await this.changeEvents.find({ seq: { $gt: this.last } }).sort({ seq: 1 }).limit(batch).lean<ChangeEventDocument[]>().exec();
        const delivered = this.deliver(docs);
        this.failures = 0;
        if (!delivered || docs.length < batch || this.stopped) return;
      }
    } catch (error) {
      this.failures += 1;
      if (!this.stopped) this.logger.warn({ err: { message: (error as Error).message } }, 'cannot read the change feed; retrying');
    }
  }

  /** Hands out the events that follow without a hole; false when it stopped at one. */
  private deliver(docs: ChangeEventDocument[]): boolean {
    for (const doc of docs) {
      if (doc.seq !== this.last! + 1) {
        const now = Date.now();
        this.gapSince ??= now;
        if (now - this.gapSince < (this.options.gapWaitMs ?? 2000)) {
          // Read again soon: the hole is most likely an insert about to land.
          this.holePending = true;
          return false;
        }
        this.logger.warn({ from: this.last! + 1, to: doc.seq - 1 }, 'change feed: passed over sequence numbers never published');
      }
      this.gapSince = undefined;
      this.holePending = false;
      this.last = doc.seq;
      if (doc.skip) continue;
      const event = toChangeEvent(doc);
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch (error) {
          this.logger.error({ err: error }, 'a change feed listener threw (a bug); the feed goes on');
        }
      }
    }
    return true;
  }

  private async lastSequence(): Promise<number> {
    const newest = await this.changeEvents.findOne({}, { _id: 0, seq: 1 }).sort({ seq: -1 }).lean<{ seq: number }>().exec();
    return newest?.seq ?? 0;
  }
}
