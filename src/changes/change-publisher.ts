import type { CounterModel } from '../db/counter.model';
import { nextSequence } from '../db/counter.model';
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

/**
 * Moves committed events from a document's outbox into `change_events`, giving each the next
 * global sequence number, then removes them from the outbox.
 *
 * Any process may publish any document's outbox, at the same time as another: entries are taken in
 * outbox order (the document's commit order) and each is inserted under its own id, so a second
 * publisher's copy is refused by the unique `_id` and the sequence number it spent is stored as a
 * `skip` placeholder, never left as a gap readers would wait on. An entry is removed from the outbox
 * only after it is stored, so a crash in between publishes it again later (once, by its id).
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
    const model = (source === 'flight' ? this.deps.flights : this.deps.passengerLists) as unknown as FlightModel;
    const doc = await model.findOne({ flightId }, { _id: 0, outbox: 1 }).lean<{ outbox?: PendingChangeEvent[] }>().exec();
    const pending = doc?.outbox ?? [];
    if (pending.length === 0) return;
    // Several entries mean concurrent writers, each publishing the whole outbox: skip what another
    // already stored rather than spend numbers on copies.
    const stored = pending.length > 1 ? await this.storedIds(pending) : new Set<string>();
    const fresh = pending.filter((event) => !stored.has(event.id));
    // One number at a time, each taken after the entry before it is stored (by this publisher or
    // another): so an entry's number is always above those of the entries before it.
    for (const event of fresh) await this.store(event, await nextSequence(this.deps.counters, SEQUENCE));
    await model.updateOne({ flightId }, { $pull: { outbox: { id: { $in: pending.map((event) => event.id) } } } }).exec();
    for (const event of pending) {
      if (event.type === ChangeEventType.FlightDeleted) await this.deps.flights.deleteOne({ flightId: event.flightId }).exec();
    }
    this.deps.onPublished?.();
  }

  private async storedIds(pending: PendingChangeEvent[]): Promise<Set<string>> {
    const found = await this.deps.changeEvents.find({ _id: { $in: pending.map((event) => event.id) } }, { _id: 1 }).lean<{ _id: string }[]>().exec();
    return new Set(found.map((event) => event._id));
  }

  private async store(event: PendingChangeEvent, seq: number): Promise<void> {
    const { id, ...fields } = event;
    try {
      await this.deps.changeEvents.collection.insertOne({ _id: id, seq, ...fields, webhooksDispatched: false } as never);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // Already published by another process: keep the sequence without a hole.
      await this.deps.changeEvents.collection.insertOne({ _id: `skip_${seq}`, seq, type: 'skip', at: new Date(), flightId: event.flightId, subject: '', flight: null, webhooksDispatched: true, skip: true } as never);
    }
  }
}
