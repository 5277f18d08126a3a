import { Schema, type Connection, type Model } from 'mongoose';
import type { ChangeEvent, FlightPlacement, PendingChangeEvent } from './change-event';

/**
 * A published event (collection `change_events`). `_id` is the event id, so publishing the same
 * outbox entry twice (two processes relaying at once, a retry) stores it once; `seq` is unique.
 */
export interface ChangeEventDocument extends Omit<ChangeEvent, 'id'> {
  _id: string;
  /**
   * False until the webhook dispatcher created this event's deliveries (one per matching endpoint);
   * any process may do it, the deliveries' unique index keeps it once per endpoint.
   */
  webhooksDispatched: boolean;
  /**
   * A sequence number spent on an event that was already published (a duplicate relay): readers skip
   * it, so that the gap it would leave is not mistaken for an event still being written.
   */
  skip?: boolean;
}

const placementSchema = new Schema<FlightPlacement>({ resourceId: Number, departureAt: Date, arrivalAt: Date }, { _id: false });

const eventFields = {
  type: { type: String, required: true },
  at: { type: Date, required: true },
  flightId: { type: Number, required: true },
  flight: { type: placementSchema, default: null },
  previous: { type: placementSchema, default: undefined },
  passengerList: {
    type: new Schema({ version: Number, created: [Number], modified: [Number], deleted: [Number], count: Number }, { _id: false }),
    default: undefined,
  },
  subject: { type: String, required: true },
};

/** An outbox entry, embedded in the document whose change it records (flights, passenger_lists). */
export const pendingEventSchema = new Schema<PendingChangeEvent>({ id: { type: String, required: true }, ...eventFields }, { _id: false });

export const changeEventSchema = new Schema<ChangeEventDocument>(
  {
    _id: { type: String, required: true },
    seq: { type: Number, required: true, unique: true },
    ...eventFields,
    webhooksDispatched: { type: Boolean, required: true, default: false },
    skip: { type: Boolean, default: undefined },
  },
  { collection: 'change_events', versionKey: false },
);
changeEventSchema.index({ webhooksDispatched: 1, seq: 1 });
changeEventSchema.index({ at: 1 });

export type ChangeEventModel = Model<ChangeEventDocument>;

export function changeEventModel(connection: Connection): ChangeEventModel {
  return connection.model<ChangeEventDocument>('ChangeEvent', changeEventSchema);
}

/** The event as the feed hands it out. */
export function toChangeEvent(doc: ChangeEventDocument): ChangeEvent {
  const { _id, webhooksDispatched: _dispatched, skip: _skip, ...rest } = doc;
  return { id: _id, ...rest };
}
