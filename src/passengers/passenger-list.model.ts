import { Schema, type Connection, type Model } from 'mongoose';
import type { PassengerFields } from './passenger.record';

/** A passenger as stored inside its flight's list (the spec's field names; `idvolo` is the list's flight). */
export interface StoredPassenger extends PassengerFields {
  id: number;
  parent_id: number | null;
}

/** Who applied a change set, when, and what it did. */
export interface PassengerListChange {
  version: number;
  at: Date;
  subject: string;
  tokenId?: string | null;
  idempotencyKey?: string | null;
  created: number;
  modified: number;
  deleted: number;
  passengers: number;
}

/** A recently applied request with an Idempotency-Key, kept 24 hours to answer its retries. */
export interface RecentRequest {
  key: string;
  /** SHA-256 of the change set, to tell a retry from a different request with the same key. */
  hash: string;
  at: Date;
  /** The first answer, returned again to a retry. */
  response: unknown;
}

/**
 * One document per flight. The whole change set of a push is one atomic update of this document,
 * guarded by `version` (optimistic concurrency); `passengerCount` is kept in step by that same
 * update so the timeline reads counts without loading the records.
 */
export interface PassengerListDocument {
  flightId: number;
  version: number;
  passengers: StoredPassenger[];
  passengerCount: number;
  /** Applied pushes, oldest first, capped at the most recent PASSENGER_LIST_HISTORY_LIMIT. */
  history: PassengerListChange[];
  /** Idempotency records, written by the same atomic update as the change they answer. */
  requests: RecentRequest[];
  updatedBy?: string;
}

export const PASSENGER_LIST_HISTORY_LIMIT = 1000;

const passengerSchema = new Schema<StoredPassenger>(
  {
    id: { type: Number, required: true },
    surname: { type: String, required: true },
    name: { type: String, required: true },
    luogonascita: { type: String, required: true },
    nazionalita: { type: String, required: true },
    typedoc: { type: String, required: true },
    numberdoc: { type: String, required: true },
    date_born: { type: String, required: true },
    scadenza: { type: String, required: true },
    issuingstate: { type: String, required: true },
    email: { type: String, default: null },
    phone: { type: String, default: null },
    is_carring_infant: { type: Boolean, default: false },
    gender: { type: String, required: true },
    parent_id: { type: Number, default: null },
  },
  { _id: false },
);

const changeSchema = new Schema<PassengerListChange>(
  {
    version: Number,
    at: Date,
    subject: String,
    tokenId: { type: String, default: null },
    idempotencyKey: { type: String, default: null },
    created: Number,
    modified: Number,
    deleted: Number,
    passengers: Number,
  },
  { _id: false },
);

export const passengerListSchema = new Schema<PassengerListDocument>(
  {
    flightId: { type: Number, required: true, unique: true },
    version: { type: Number, required: true, default: 0 },
    passengers: { type: [passengerSchema], default: [] },
    passengerCount: { type: Number, required: true, default: 0 },
    history: { type: [changeSchema], default: [] },
    requests: {
      type: [new Schema<RecentRequest>({ key: String, hash: String, at: Date, response: Schema.Types.Mixed }, { _id: false })],
      default: [],
    },
    updatedBy: String,
  },
  { collection: 'passenger_lists', versionKey: false, timestamps: true },
);

export type PassengerListModel = Model<PassengerListDocument>;

export function passengerListModel(connection: Connection): PassengerListModel {
  return connection.model<PassengerListDocument>('PassengerList', passengerListSchema);
}
