import { randomUUID } from 'node:crypto';
import type { CounterModel } from '../db/counter.model';
import { advanceSequence, nextSequence } from '../db/counter.model';
import { isDuplicateKey } from '../db/duplicate-key';
import type { FlightModel } from '../flights/flight.model';
import type { Logger } from '../logger';
import type { PassengerListModel } from '../passengers/passenger-list.model';
import { ChangeEventType, type PendingChangeEvent } from './change-event';
import type { ChangeEventModel } from './change-event.model';

/** Where outbox entries live: the flight documents and the passenger-list documents. */
export type OutboxSource = 'flight' | 'passengerList';

export interface ChangePublisherDeps {
  changeEvents: ChangeEventModel;
  counters: CounterModel;
  flights: FlightModel;
  passengerLists: PassengerListModel;
  logger: Logger;
  /** Called after this process published at least one event (the local feed reads at once). */
  onPublished?: () => void;
}

const SEQUENCE = 'change_event';

/** How long a publisher holds a document's outbox before another may take it over (it died or stalled). */
export const OUTBOX_LEASE_MS = 30_000;

/** Tries of a number whose event collided with a stored one's `seq` (the counter went backwards). */
const SEQUENCE_REPAIR_TRIES = 3;

type OutboxDocument = { outbox?: PendingChangeEvent[]; outboxLease?: { owner: string; until: Date } };

/**
 * Moves committed events from a document's outbox into `change_events`, giving each the next
 * global sequence number, then removes them from the outbox.
 *
 * One publisher at a time per document: it takes a lease on the document (`outboxLease`), publishes
 * every entry in outbox order (the document's commit order), then pulls them and gives the lease
 * back in one update that also reads what was appended meanwhile, and goes on with that. A writer
 * that finds the lease taken leaves its entry to the holder: the holder's release reads the outbox
 * after the writer's entry was committed, so nothing is left behind, and each event takes one
 * number. A holder that died leaves a lease that expires (OUTBOX_LEASE_MS); the next publisher (the
 * sweep at the latest) skips what its predecessor stored and publishes the rest. Should two still
 * meet (a holder stalled past its lease), the second copy is refused by the unique `_id` and the
 * number it spent is stored as a `skip` placeholder, never left as a hole readers would wait on.
 *
 * A flight.deleted event sits in the deleted flight's passenger-list tombstone (the write that
 * deletes); publishing it also finishes the deletion, so a crash after the tombstone is completed
 * by whichever process publishes it.
 */
export class ChangePublisher {
  constructor(private readonly deps: ChangePublisherDeps) {}

  /** Publishes what the document's outbox holds; false when the database failed (a sweep will retry). */
  async publish(source: OutboxSource, flightId: number): Promise<boolean> {
    try {
      await this.publishOrThrow(source, flightId);
      return true;
    } catch (error) {
      this.deps.logger.warn({ err: { message: (error as Error).message }, source, flightId }, 'could not publish change events yet; the outbox sweep will retry');
      return false;
    }
  }

  async publishOrThrow(source: OutboxSource, flightId: number): Promise<void> {
    // The driver's collection: the lease is the publisher's field, not the document's schema.
    const documents = (source === 'flight' ? this.deps.flights : this.deps.passengerLists).collection;
    const owner = randomUUID();
    const take = async () => {
      const now = new Date();
      // The document as it was: a lease left on it means a publisher before us stopped part-way.
      return (await documents.findOneAndUpdate(
        { flightId, 'outbox.0': { $exists: true }, $or: [{ outboxLease: { $exists: false } }, { 'outboxLease.until': { $lt: now } }] },
        { $set: { outboxLease: { owner, until: new Date(now.getTime() + OUTBOX_LEASE_MS) } } },
        { projection: { _id: 0, outbox: 1, outboxLease: 1 }, returnDocument: 'before' },
      )) as OutboxDocument | null;
    };
    // Nothing to publish, or another publisher holds the outbox and publishes what it holds.
    let held = await take();
    while (held?.outbox?.length) {
      const pending = held.outbox;
      try {
        // Entries a previous holder stored before it died or failed are not stored twice.
        const stored = held.outboxLease ? await this.storedIds(pending) : new Set<string>();
        // One number at a time, each taken after the entry before it is stored: an entry's number is
        // always above those of the entries before it.
        for (const event of pending) if (!stored.has(event.id)) await this.store(event);
      } catch (error) {
        // Left expired rather than removed: the next publisher (a retry, the sweep) need not wait
        // for it, and knows to skip what this one stored.
        await documents.updateOne({ flightId, 'outboxLease.owner': owner }, { $set: { 'outboxLease.until': new Date(0) } }).catch(() => undefined);
        throw error;
      }
      const rest = (await documents.findOneAndUpdate(
        { flightId, 'outboxLease.owner': owner },
        { $pull: { outbox: { id: { $in: pending.map((event) => event.id) } } } as never, $unset: { outboxLease: '' } },
        { projection: { _id: 0, outbox: 1 }, returnDocument: 'after' },
      )) as OutboxDocument | null;
      for (const event of pending) {
        if (event.type === ChangeEventType.FlightDeleted) await this.deps.flights.deleteOne({ flightId: event.flightId }).exec();
      }
      this.deps.onPublished?.();
      // No match: the lease lapsed and another publisher took the outbox over (it pulls what we stored).
      // Entries left: writers that found the lease taken and left theirs to us.
      held = rest?.outbox?.length ? await take() : null;
    }
  }

  private async storedIds(pending: PendingChangeEvent[]): Promise<Set<string>> {
    const found = await this.deps.changeEvents.find({ _id: { $in: pending.map((event) => event.id) } }, { _id: 1 }).lean<{ _id: string }[]>().exec();
    return new Set(found.map((event) => event._id));
  }

  /**
   * Stores the event under the next number. A number already stored (the counter went backwards: a
   * database restored from a backup, the counter dropped, a rolled-back counter write) moves the
   * counter past the newest stored event, with a warning, and the event takes the next one.
   */
  private async store(event: PendingChangeEvent): Promise<void> {
    const { id, ...fields } = event;
    for (let attempt = 1; ; attempt += 1) {
      const seq = await nextSequence(this.deps.counters, SEQUENCE);
      try {
        await this.deps.changeEvents.collection.insertOne({ _id: id, seq, ...fields, webhooksDispatched: false } as never);
        return;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        if (duplicateOfSequence(error)) {
          if (attempt >= SEQUENCE_REPAIR_TRIES) throw error;
          await this.repairSequence(seq);
          continue;
        }
        // Already published by another publisher (one that stalled past its lease): keep the sequence without a hole.
        await this.deps.changeEvents.collection.insertOne({ _id: `skip_${seq}`, seq, type: 'skip', at: new Date(), flightId: event.flightId, subject: '', flight: null, webhooksDispatched: true, skip: true } as never);
        return;
      }
    }
  }

  private async repairSequence(collided: number): Promise<void> {
    const newest = await this.deps.changeEvents.findOne({}, { _id: 0, seq: 1 }).sort({ seq: -1 }).lean<{ seq: number }>().exec();
    const atLeast = newest?.seq ?? collided;
    this.deps.logger.warn({ collided, movedTo: atLeast }, 'change event sequence was behind the stored events (a restored or rolled-back counter); moved it past them');
    await advanceSequence(this.deps.counters, SEQUENCE, atLeast);
  }
}

/** E11000 on the `seq` index rather than on `_id`. */
function duplicateOfSequence(error: unknown): boolean {
  const { keyPattern, keyValue, message } = error as { keyPattern?: object; keyValue?: object; message?: string };
  if (keyPattern || keyValue) return 'seq' in (keyPattern ?? keyValue ?? {});
  return /index: seq/.test(message ?? '');
}
