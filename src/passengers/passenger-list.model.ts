import { Schema, type Connection, type Model } from 'mongoose';
import type { PendingChangeEvent } from '../changes/change-event';
import { pendingEventSchema } from '../changes/change-event.model';
import { CHANGEABLE_PASSENGER_FIELD_NAMES, PASSENGER_RECORD_FIELDS, type PassengerFieldDeclaration } from './passenger.fields';
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

/** A field a push changed, under the contract's name, with its stored values before and after. */
export interface PassengerFieldChange {
  field: string;
  before: string | number | boolean | null;
  after: string | number | boolean | null;
}

/**
 * What one push did record by record: the audit detail of the history entry with the same
 * `version`. Kept in its own array so that the oldest details can be trimmed by the push's own
 * update (`$push` with `$slice`) while their counts stay (see passenger-list.audit.ts).
 */
export interface PassengerListChangeDetail {
  version: number;
  /** This detail's BSON size, so a push can bound the details by reading the sizes alone. */
  bytes: number;
  createdIds: number[];
  /** Every record the push named in `modified`, with only the fields that really changed (maybe none). */
  modifications: { id: number; changes: PassengerFieldChange[] }[];
  /** The deleted records as they were last stored: what an auditor needs to know who was removed. */
  deletedRecords: StoredPassenger[];
}

/**
 * A recently applied request with an Idempotency-Key, kept 24 hours to answer its retries. It holds
 * what the answer is rebuilt from (version, counts, departure day), a few hundred bytes, never the
 * answer itself: warnings alone reach 238 kB on a 1,500-passenger list.
 */
export interface RecentRequest {
  key: string;
  /** SHA-256 of the change set, to tell a retry from a different request with the same key. */
  hash: string;
  at: Date;
  /** The version the request produced. */
  version: number;
  created: number;
  modified: number;
  deleted: number;
  passengers: number;
  /** The local departure day the warnings were computed for (the flight may be moved later). */
  departureDay: string;
}

/** A record as stored before records were compacted: the whole first answer, nothing else. */
export interface LegacyRecentRequest {
  key: string;
  hash: string;
  at: Date;
  response: { version: number; created: number; modified: number; deleted: number; passengers: number };
}

/**
 * One document per flight. The whole change set of a push is one atomic update of this document,
 * guarded by `version` (optimistic concurrency); `passengerCount` is kept in step by that same
 * update so the timeline reads counts without loading the records.
 *
 * Every part is bounded, so the document stays far below MongoDB's 16 MiB whatever clients send:
 * passengers by PASSENGER_LIST_MAX_PASSENGERS (at most 5,000 records of at most ~1.3 kB), history
 * and idempotency records by the limits below (stored strings at most STORED_TEXT_MAX characters),
 * the history's record-by-record detail by PASSENGER_LIST_HISTORY_DETAIL_BYTES.
 */
export interface PassengerListDocument {
  flightId: number;
  version: number;
  passengers: StoredPassenger[];
  passengerCount: number;
  /** Applied pushes, oldest first, capped at the most recent PASSENGER_LIST_HISTORY_LIMIT. */
  history: PassengerListChange[];
  /**
   * The record-by-record detail of the newest pushes, oldest first, within
   * PASSENGER_LIST_HISTORY_DETAIL_BYTES (see passenger-list.audit.ts); older entries keep their counts.
   */
  historyDetails?: PassengerListChangeDetail[];
  /** Files made of the list (who, when, which format and version), oldest first, capped at PASSENGER_LIST_EXPORT_LIMIT. */
  exports?: PassengerListExport[];
  /** Idempotency records, written by the same atomic update as the change they answer. */
  requests: (RecentRequest | LegacyRecentRequest)[];
  updatedBy?: string;
  /**
   * Set when the flight was deleted: the list is then a tombstone with no passenger data that no
   * push can write to or re-create (the unique flightId index refuses a new list beside it).
   */
  deletedAt?: Date | null;
  /**
   * Events of changes committed to this list (and, in a tombstone, the flight's deletion) not yet
   * published; written by the same update as the change (see src/changes/change-publisher.ts).
   */
  outbox?: PendingChangeEvent[];
}

export const PASSENGER_LIST_HISTORY_LIMIT = 1000;
/** Most export records a list keeps (each under 500 bytes); the oldest go first. */
export const PASSENGER_LIST_EXPORT_LIMIT = 1000;

/** One file made of a list's personal data: an entry of the list's export history. */
export interface PassengerListExport {
  at: Date;
  subject: string;
  tokenId: string | null;
  /** `xlsx`, `csv`… (EXPORT_FORMATS). */
  format: string;
  /** The list version the file holds. */
  version: number;
}
/** Most idempotency records a list keeps; beyond it the oldest key is forgotten before its 24 hours. */
export const PASSENGER_LIST_REQUEST_LIMIT = 1000;
/** Longest token subject, token id or key stored in a history entry. */
export const STORED_TEXT_MAX = 200;

/** A declared field as a stored path: required unless it may be empty, and then empty as null (or false for a flag). */
function storedPath(field: PassengerFieldDeclaration) {
  const type = { string: String, boolean: Boolean, int: Number }[field.kind];
  if (field.nullable) return { type, default: null };
  return field.kind === 'boolean' ? { type, default: false } : { type, required: true };
}

const passengerSchema = new Schema<StoredPassenger>(
  {
    id: { type: Number, required: true },
    ...Object.fromEntries(CHANGEABLE_PASSENGER_FIELD_NAMES.map((name) => [name, storedPath(PASSENGER_RECORD_FIELDS[name])])),
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

const changeDetailSchema = new Schema<PassengerListChangeDetail>(
  {
    version: Number,
    bytes: Number,
    createdIds: [Number],
    modifications: [
      new Schema(
        { id: Number, changes: [new Schema({ field: String, before: Schema.Types.Mixed, after: Schema.Types.Mixed }, { _id: false })] },
        { _id: false },
      ),
    ],
    deletedRecords: [passengerSchema],
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
    historyDetails: { type: [changeDetailSchema], default: undefined },
    exports: {
      type: [new Schema<PassengerListExport>({ at: Date, subject: String, tokenId: { type: String, default: null }, format: String, version: Number }, { _id: false })],
      default: undefined,
    },
    requests: {
      type: [
        new Schema(
          {
            key: String,
            hash: String,
            at: Date,
            version: Number,
            created: Number,
            modified: Number,
            deleted: Number,
            passengers: Number,
            departureDay: String,
            // Only in records written before they were compacted; rewritten compact by the next push.
            response: Schema.Types.Mixed,
          },
          { _id: false },
        ),
      ],
      default: [],
    },
    updatedBy: String,
    deletedAt: { type: Date, default: undefined },
    outbox: { type: [pendingEventSchema], default: undefined },
  },
  { collection: 'passenger_lists', versionKey: false, timestamps: true },
);

// The outbox sweep's query: lists holding events older than a few seconds (rare, after a crash).
passengerListSchema.index({ 'outbox.at': 1 });

export type PassengerListModel = Model<PassengerListDocument>;

export function passengerListModel(connection: Connection): PassengerListModel {
  return connection.model<PassengerListDocument>('PassengerList', passengerListSchema);
}
