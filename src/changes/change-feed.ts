import type { Logger } from '../logger';
import type { ChangeEvent, ChangeFeed } from './change-event';
import { toChangeEvent, type ChangeEventDocument, type ChangeEventModel } from './change-event.model';

export interface ChangeFeedReaderOptions {
  /** Milliseconds between reads when nothing woke the reader (events of other processes). */
  pollMs: number;
  /**
   * How long a hole in the sequence holds back the events after it: a number is taken just before
   * its event is inserted, so a hole is normally an insert in flight, landing within milliseconds.
   * After this the events after it are delivered and the hole is watched for a late arrival.
   */
  gapWaitMs?: number;
  /** Told, for each event handed out, how long after its change it was (metrics: the feed's lag). */
  onDelivered?: (lagMs: number) => void;
  /**
   * How long a passed-over number is watched: an event stored this late (a database stall between
   * taking its number and storing it) is still delivered; one that never comes is a publisher that
   * died between the two.
   */
  lateWindowMs?: number;
  /** Most events read per query. */
  batchSize?: number;
}

/** Most passed-over numbers watched at once (a huge hole is a counter moved by hand, not inserts in flight). */
const MAX_WATCHED = 10_000;
/** Ids of delivered events remembered, so that a reset of the position never delivers one twice. */
const REMEMBERED_IDS = 10_000;
/** Events published this long before the sequence was last seen sound are taken as old after a reset. */
const RESET_MARGIN_MS = 5_000;
/** How often the watched holes are looked up, and an idle feed checks that the sequence did not go backwards. */
const CHECK_EVERY_MS = 1_000;

/**
 * Every process's view of the change feed: reads `change_events` in sequence order and hands each
 * event to the local listeners (subscriptions, the webhook dispatcher's wake-up). It starts at the
 * end of the feed: listeners hear what is published after they listen. Reading is a cheap indexed
 * query repeated every `pollMs`, and at once when this process published (`wake`).
 *
 * No event stored while the reader runs is lost to it (README.md, "Live changes"):
 * - a hole holds the events after it back for `gapWaitMs` at most; the numbers passed over are then
 *   watched for `lateWindowMs`, and an event stored late is delivered when it lands (after events
 *   with higher numbers, of other documents: one document's events keep their order, as the next
 *   one's number is taken only once the previous one is stored);
 * - a sequence that went backwards (the newest stored number below the position: a database
 *   restored from a backup, the counters dropped, a restarted development engine) is detected
 *   within a second of idling; the reader logs a warning and goes on from the events published
 *   since it last saw the sequence sound, delivering none twice.
 */
export class ChangeFeedReader implements ChangeFeed {
  private readonly listeners = new Set<(event: ChangeEvent) => void>();
  private last: number | undefined;
  private gapSince: number | undefined;
  /** Passed-over numbers and when they were passed. */
  private readonly watched = new Map<number, number>();
  /** Delivered event ids, oldest first. */
  private readonly delivered = new Set<string>();
  /** When a read last found the sequence at or past the position. */
  private soundAt = Date.now();
  private checkedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private again = false;
  private holePending = false;
  /** The position was just reset: the first event after it may be far ahead (the counter was not reset). */
  private resynced = false;
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
        this.soundAt = Date.now();
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
      const startedAt = Date.now();
      if (this.last === undefined) {
        this.last = await this.lastSequence();
        this.soundAt = startedAt;
      }
      const batch = this.options.batchSize ?? 500;
      let readAny = false;
      for (;;) {
        const docs = await this.changeEvents.find({ seq: { $gt: this.last } }).sort({ seq: 1 }).limit(batch).lean<ChangeEventDocument[]>().exec();
        readAny ||= docs.length > 0;
        const delivered = this.deliverInOrder(docs);
        this.failures = 0;
        if (!delivered || docs.length < batch || this.stopped) break;
      }
      if (readAny) this.soundAt = startedAt;
      if (startedAt - this.checkedAt >= CHECK_EVERY_MS) {
        this.checkedAt = startedAt;
        await this.readLateArrivals(startedAt);
        if (!readAny) await this.checkSequence(startedAt);
      }
    } catch (error) {
      this.failures += 1;
      if (!this.stopped) this.logger.warn({ err: { message: (error as Error).message } }, 'cannot read the change feed; retrying');
    }
  }

  /** Hands out the events that follow without a hole (or after one held long enough); false when it stopped at one. */
  private deliverInOrder(docs: ChangeEventDocument[]): boolean {
    for (const doc of docs) {
      if (doc.seq !== this.last! + 1 && !this.resynced) {
        const now = Date.now();
        this.gapSince ??= now;
        if (now - this.gapSince < (this.options.gapWaitMs ?? 250)) {
          // Read again soon: the hole is most likely an insert about to land.
          this.holePending = true;
          return false;
        }
        this.watch(this.last! + 1, doc.seq - 1, now);
      }
      this.gapSince = undefined;
      this.holePending = false;
      this.resynced = false;
      this.last = doc.seq;
      this.deliver(doc);
    }
    return true;
  }

  private watch(from: number, to: number, now: number): void {
    const room = MAX_WATCHED - this.watched.size;
    const last = Math.min(to, from + room - 1);
    for (let seq = from; seq <= last; seq += 1) this.watched.set(seq, now);
    if (last < to) this.logger.warn({ from: last + 1, to }, 'change feed: too many sequence numbers missing to watch them all; events stored late with these numbers will not be delivered');
  }

  /** Delivers events stored after their number was passed over; forgets numbers watched for long enough. */
  private async readLateArrivals(now: number): Promise<void> {
    if (this.watched.size === 0) return;
    const numbers = [...this.watched.keys()];
    const docs = await this.changeEvents.find({ seq: { $in: numbers } }).sort({ seq: 1 }).lean<ChangeEventDocument[]>().exec();
    for (const doc of docs) {
      this.watched.delete(doc.seq);
      if (!doc.skip) this.logger.info({ seq: doc.seq, id: doc._id }, 'change feed: delivering an event stored after events with higher numbers');
      this.deliver(doc);
    }
    const window = this.options.lateWindowMs ?? 300_000;
    const expired: number[] = [];
    for (const [seq, passedAt] of this.watched) if (now - passedAt >= window) expired.push(seq);
    if (expired.length === 0) return;
    for (const seq of expired) this.watched.delete(seq);
    this.logger.warn({ from: expired[0], to: expired[expired.length - 1], count: expired.length }, 'change feed: sequence numbers never published (a publisher died between taking a number and storing its event)');
  }

  /** An idle feed whose newest stored number is below the position: the sequence went backwards. */
  private async checkSequence(now: number): Promise<void> {
    const newest = await this.lastSequence();
    if (newest >= this.last!) {
      this.soundAt = now;
      return;
    }
    const since = new Date(this.soundAt - RESET_MARGIN_MS);
    this.logger.warn({ position: this.last, newest }, 'change feed: the sequence went backwards (a restored database, dropped counters, a restarted engine); reading on from the newest events');
    this.last = newest;
    this.gapSince = undefined;
    this.holePending = false;
    this.watched.clear();
    this.resynced = true;
    this.soundAt = now;
    const recent = await this.changeEvents.find({ seq: { $lte: newest }, at: { $gte: since } }).sort({ seq: 1 }).limit(this.options.batchSize ?? 500).lean<ChangeEventDocument[]>().exec();
    for (const doc of recent) this.deliver(doc);
  }

  private deliver(doc: ChangeEventDocument): void {
    if (doc.skip || this.delivered.has(doc._id)) return;
    this.delivered.add(doc._id);
    if (this.delivered.size > REMEMBERED_IDS) this.delivered.delete(this.delivered.values().next().value!);
    const event = toChangeEvent(doc);
    this.options.onDelivered?.(Date.now() - event.at.getTime());
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.logger.error({ err: error }, 'a change feed listener threw (a bug); the feed goes on');
      }
    }
  }

  private async lastSequence(): Promise<number> {
    const newest = await this.changeEvents.findOne({}, { _id: 0, seq: 1 }).sort({ seq: -1 }).lean<{ seq: number }>().exec();
    return newest?.seq ?? 0;
  }
}
