import { calculateObjectSize } from 'bson';
import {
  PASSENGER_LIST_HISTORY_LIMIT,
  type PassengerFieldChange,
  type PassengerListChange,
  type PassengerListChangeDetail,
  type PassengerListDocument,
  type StoredPassenger,
} from './passenger-list.model';
import type { ChangePlan } from './passenger-list.plan';
import { CHANGEABLE_PASSENGER_FIELD_NAMES } from './passenger.fields';

/**
 * Most bytes (BSON, all entries together) the record-by-record detail of a list's history may take.
 * The largest list (5,000 passengers of at most ~1.3 kB), its 1,000 idempotency records and 1,000
 * counted history entries take under 8 MiB; with this budget a list stays under 10 MiB, far from
 * MongoDB's 16 MiB. 2 MiB holds the detail of thousands of ordinary pushes: a typical deleted
 * record takes ~300 bytes, a two-field modification ~120.
 */
export const PASSENGER_LIST_HISTORY_DETAIL_BYTES = 2 * 1024 * 1024;

/** The stored fields an audit compares, under the contract's names (`id` never changes; `idvolo` is the list's flight). */
const AUDITED_FIELDS = CHANGEABLE_PASSENGER_FIELD_NAMES satisfies readonly (keyof StoredPassenger)[];

/**
 * What a planned push does record by record: the ids it creates, the fields it really changes in
 * each record it modifies (a field sent with its stored value is no change), and the deleted records'
 * last stored values. Pure; `before` is the list the plan was made on.
 */
export function describePassengerChanges(
  before: readonly StoredPassenger[],
  plan: Pick<ChangePlan, 'passengers' | 'createdIds' | 'modifiedIds' | 'deletedIds'>,
  version: number,
): PassengerListChangeDetail {
  const stored = new Map(before.map((passenger) => [passenger.id, passenger]));
  const after = new Map(plan.passengers.map((passenger) => [passenger.id, passenger]));
  const modifications = plan.modifiedIds.map((id) => ({ id, changes: changedFields(stored.get(id)!, after.get(id)!) }));
  const deletedRecords = plan.deletedIds.map((id) => storedFields(stored.get(id)!));
  const detail: PassengerListChangeDetail = { version, bytes: 0, createdIds: [...plan.createdIds], modifications, deletedRecords };
  // Measured with its own size field in, so the figure is what the database stores.
  detail.bytes = calculateObjectSize(detail);
  return detail;
}

function changedFields(before: StoredPassenger, after: StoredPassenger): PassengerFieldChange[] {
  return AUDITED_FIELDS.filter((field) => before[field] !== after[field]).map((field) => ({ field, before: before[field], after: after[field] }));
}

/** A record with exactly the stored fields, whatever else the object read carries. */
function storedFields(passenger: StoredPassenger): StoredPassenger {
  const record: Record<string, unknown> = { id: passenger.id };
  for (const field of AUDITED_FIELDS) record[field] = passenger[field];
  return record as unknown as StoredPassenger;
}

/** How a push changes the stored details: `$push: { historyDetails: { $each: append, $slice: slice } }`. */
export interface HistoryDetailUpdate {
  /** The push's detail, or nothing when it alone is over the budget (its entry keeps the counts). */
  append: PassengerListChangeDetail[];
  /** `$slice` value: how many details, newest first, the list keeps (0 keeps none). */
  slice: number;
}

/**
 * Keeps details newest first while they fit PASSENGER_LIST_HISTORY_DETAIL_BYTES; older details are
 * dropped, so their entries fall back to counts. `storedBytes` are the sizes of the details the list
 * holds, oldest first, read in the same version-guarded round as the list, so the update trims
 * exactly what was measured.
 */
export function boundHistoryDetails(storedBytes: readonly number[], detail: PassengerListChangeDetail, budget = PASSENGER_LIST_HISTORY_DETAIL_BYTES): HistoryDetailUpdate {
  const append = detail.bytes <= budget ? [detail] : [];
  let total = append.length ? detail.bytes : 0;
  let keep = append.length;
  for (let index = storedBytes.length - 1; index >= 0 && keep < PASSENGER_LIST_HISTORY_LIMIT; index -= 1) {
    // An entry without a size (hand-edited, or damaged) is treated as too large to keep.
    const bytes = Number.isFinite(storedBytes[index]) ? storedBytes[index] : Number.POSITIVE_INFINITY;
    if (total + bytes > budget) break;
    total += bytes;
    keep += 1;
  }
  return { append, slice: keep === 0 ? 0 : -keep };
}

/** A field change as GraphQL shows it: values as text (`true`/`false`, record ids in decimal), null as null. */
export interface FieldChangeView {
  field: string;
  before: string | null;
  after: string | null;
}

/** A history entry with its detail, or with `detailDropped` and only the counts. */
export interface PassengerListHistoryEntry extends PassengerListChange {
  detailDropped: boolean;
  createdIds: number[] | null;
  modifications: { recordId: number; changes: FieldChangeView[] }[] | null;
  deletedRecords: StoredPassenger[] | null;
}

/** The history of a stored list, newest first, each entry joined with its detail where it is kept. */
export function passengerListHistory(list: Partial<Pick<PassengerListDocument, 'history' | 'historyDetails'>> | null): PassengerListHistoryEntry[] {
  const details = new Map((list?.historyDetails ?? []).map((detail) => [detail.version, detail]));
  return [...(list?.history ?? [])].reverse().map((entry) => {
    const detail = details.get(entry.version);
    return {
      ...entry,
      tokenId: entry.tokenId ?? null,
      idempotencyKey: entry.idempotencyKey ?? null,
      detailDropped: !detail,
      createdIds: detail ? detail.createdIds : null,
      modifications: detail
        ? detail.modifications.map(({ id, changes }) => ({ recordId: id, changes: changes.map(({ field, before, after }) => ({ field, before: asText(before), after: asText(after) })) }))
        : null,
      deletedRecords: detail ? detail.deletedRecords : null,
    };
  });
}

const asText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
