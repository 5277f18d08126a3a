import { normalizePassenger, type NormalizedPassengerFields, type PassengerFieldName } from './passenger.normalize';
import type { StoredPassenger } from './passenger-list.model';

/** The three groups of a push body. */
export type ChangeGroup = 'created' | 'modified' | 'deleted';

/** A record of a push as received (every field optional; see PassengerInput). */
export type PassengerChange = Partial<Record<PassengerFieldName | 'id' | 'idvolo' | 'parent_id' | 'row_number_parent_id' | 'row_number', unknown>>;

export interface PassengerChangeSet {
  created: PassengerChange[];
  modified: PassengerChange[];
  deleted: unknown[];
}

/** One problem of a change set: which group, which element, which record and field, and why. */
export interface ChangeProblem {
  group: ChangeGroup;
  index: number;
  id: number | null;
  field: string;
  message: string;
  value?: unknown;
}

export interface ChangePlan {
  /** The list after the change set, in list order (kept records first, in place; new ones appended). */
  passengers: StoredPassenger[];
  created: number;
  modified: number;
  deleted: number;
  /**
   * The ids behind the three counts, in the order the push named them (what the change event and the
   * audit history report): records created (an identical re-created record is no creation), records
   * named in `modified` (whether or not a field really changed) and records deleted. An id both
   * deleted and created by one push was replaced and is in both.
   */
  createdIds: number[];
  modifiedIds: number[];
  deletedIds: number[];
  /** Problems that make the change set invalid (422). */
  problems: ChangeProblem[];
  /** `created` ids that exist with different content (409). */
  conflicts: ChangeProblem[];
}

const PASSENGER_FIELDS: readonly PassengerFieldName[] = [
  'surname', 'name', 'luogonascita', 'nazionalita', 'typedoc', 'numberdoc', 'date_born', 'scadenza', 'issuingstate', 'email', 'phone', 'is_carring_infant', 'gender',
];

interface Origin {
  group: ChangeGroup;
  index: number;
}

const isId = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 2_147_483_647;

/**
 * Works out, in memory, what a change set does to a list: validates every record with the shared
 * passenger rules, resolves parent links, and reports every problem at once. Pure: the caller
 * writes the resulting list in one atomic update (or nothing).
 */
export function planPassengerChanges(
  current: readonly StoredPassenger[],
  changes: PassengerChangeSet,
  context: { flightId: number; today: Date | string; maxPassengers?: number },
): ChangePlan {
  const problems: ChangeProblem[] = [];
  const conflicts: ChangeProblem[] = [];
  const problem = (origin: Origin, id: number | null, field: string, message: string, value?: unknown) =>
    problems.push({ group: origin.group, index: origin.index, id, field, message, ...(value !== undefined ? { value } : {}) });

  const stored = new Map(current.map((passenger) => [passenger.id, passenger]));
  const next = new Map(stored);
  const origins = new Map<number, Origin>();
  const modifiedIds: number[] = [];

  // deleted: ids, or objects with an id
  const deleting = new Map<number, Origin>();
  changes.deleted.forEach((entry, index) => {
    const origin = { group: 'deleted' as const, index };
    const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : entry;
    if (!isId(id)) problem(origin, null, 'id', 'expected a positive integer id, or an object with one', entry);
    else if (deleting.has(id)) problem(origin, id, 'id', `passenger ${id} is listed twice in deleted`);
    else if (!stored.has(id)) problem(origin, id, 'id', `passenger ${id} does not exist on flight ${context.flightId}`);
    else deleting.set(id, origin);
  });

  const checkFlight = (origin: Origin, id: number | null, record: PassengerChange) => {
    if (record.idvolo !== undefined && record.idvolo !== null && record.idvolo !== context.flightId) {
      problem(origin, id, 'idvolo', `idvolo ${String(record.idvolo)} does not match the flight ${context.flightId} of the path`, record.idvolo);
    }
  };
  const report = (origin: Origin, id: number | null, fieldProblems: { field: string; value: unknown; message: string }[]) => {
    for (const item of fieldProblems) problem(origin, id, item.field, item.message, item.value);
  };

  // modified: present fields replace stored ones; the merged record is validated whole
  const modifying = new Set<number>();
  changes.modified.forEach((record, index) => {
    const origin = { group: 'modified' as const, index };
    const id = record.id;
    if (!isId(id)) return problem(origin, null, 'id', 'a modified record needs the integer id of an existing passenger', id ?? null);
    if (modifying.has(id)) return problem(origin, id, 'id', `passenger ${id} is modified twice in one push`);
    modifying.add(id);
    const before = stored.get(id);
    if (!before) return problem(origin, id, 'id', `passenger ${id} does not exist on flight ${context.flightId}`);
    if (deleting.has(id)) return problem(origin, id, 'id', `passenger ${id} is both modified and deleted`);
    checkFlight(origin, id, record);
    const merged: Record<string, unknown> = { ...before };
    for (const field of PASSENGER_FIELDS) if (record[field] !== undefined) merged[field] = record[field];
    const { value, problems: fieldProblems } = normalizePassenger(merged, { today: context.today });
    report(origin, id, fieldProblems);
    if (record.parent_id !== undefined && record.parent_id !== null && !isId(record.parent_id)) {
      // Reported once: the record does not enter the plan, so the link checks below do not name it again.
      return problem(origin, id, 'parent_id', 'parent_id must be the integer id of another passenger, or null', record.parent_id);
    }
    if (!value) return;
    const parentId = record.parent_id === undefined ? before.parent_id : (record.parent_id as number | null);
    next.set(id, toStored(id, value, parentId));
    origins.set(id, origin);
    modifiedIds.push(id);
  });

  // row_number of created records (as the upload returns them), for row_number_parent_id links
  const idByRowNumber = new Map<number, number>();
  changes.created.forEach((record, index) => {
    if (record.row_number === undefined || record.row_number === null || !isId(record.id)) return;
    const origin = { group: 'created' as const, index };
    if (!isId(record.row_number)) problem(origin, record.id, 'row_number', 'row_number must be a positive integer', record.row_number);
    else if (idByRowNumber.has(record.row_number)) problem(origin, record.id, 'row_number', `row_number ${record.row_number} is used by two created records`);
    else idByRowNumber.set(record.row_number, record.id);
  });

  // created: client-chosen ids; a retry of an identical record is a no-op
  const seenCreatedIds = new Set<number>();
  const added: { origin: Origin; id: number }[] = [];
  changes.created.forEach((record, index) => {
    const origin = { group: 'created' as const, index };
    const id = record.id;
    if (!isId(id)) return problem(origin, null, 'id', 'a created record needs an integer id (from 1) chosen by the client, unique within the flight', id ?? null);
    if (seenCreatedIds.has(id)) return problem(origin, id, 'id', `id ${id} is used by two created records`);
    seenCreatedIds.add(id);
    checkFlight(origin, id, record);
    const { value, problems: fieldProblems } = normalizePassenger(record as Record<string, unknown>, { today: context.today });
    report(origin, id, fieldProblems);
    const parentId = createdParent(record, idByRowNumber, (field, message, given) => problem(origin, id, field, message, given));
    if (!value || parentId === undefined) return;
    const candidate = toStored(id, value, parentId);
    const existing = stored.get(id);
    origins.set(id, origin);
    if (existing && !deleting.has(id)) {
      if (!samePassenger(existing, candidate)) {
        conflicts.push({ group: 'created', index, id, field: 'id', message: `passenger ${id} already exists on flight ${context.flightId} with different content: use modified to change it` });
      }
      return;
    }
    next.set(id, candidate);
    added.push({ origin, id });
  });

  // A record deleted and created again by the same push is replaced (in place), not lost.
  const createdIdSet = new Set(added.map(({ id }) => id));
  for (const id of deleting.keys()) if (!createdIdSet.has(id)) next.delete(id);

  // The limit keeps the stored document bounded whatever clients send; it names the first record over it.
  const max = context.maxPassengers ?? Number.POSITIVE_INFINITY;
  if (next.size > max && added.length) {
    const first = Math.max(0, added.length - (next.size - max));
    const { origin, id } = added[first];
    const rest = added.length - first - 1;
    problem(origin, id, 'id', `the list would hold ${next.size} passengers, over the limit of ${max} a flight may have: ${rest ? `this record and the ${rest} created after it do not fit` : 'this record does not fit'}`);
  }

  // links in the resulting list: no dangling, self, circular or child-of-child links
  for (const passenger of next.values()) {
    const parentId = passenger.parent_id;
    if (parentId === null) continue;
    const origin = origins.get(passenger.id);
    if (parentId === passenger.id) {
      if (origin) problem(origin, passenger.id, 'parent_id', `passenger ${passenger.id} names itself as parent`);
      continue;
    }
    const parent = next.get(parentId);
    if (!parent) {
      const deletedParent = deleting.get(parentId);
      if (deletedParent) problem(deletedParent, parentId, 'id', `passenger ${parentId} cannot be deleted: passenger ${passenger.id} names it as parent (delete or relink the child too)`);
      else if (origin) problem(origin, passenger.id, 'parent_id', `parent_id ${parentId} is not a passenger of flight ${context.flightId}`);
      continue;
    }
    if (parent.parent_id === passenger.id) {
      if (origin) problem(origin, passenger.id, 'parent_id', `circular parent link between passengers ${passenger.id} and ${parentId}`);
    } else if (parent.parent_id !== null) {
      if (origin) problem(origin, passenger.id, 'parent_id', `parent ${parentId} is itself linked to a parent: a parent must be an adult without a parent link`);
    }
  }

  const createdIds = added.map(({ id }) => id);
  const deletedIds = [...deleting.keys()];
  return {
    passengers: [...next.values()],
    created: createdIds.length,
    modified: modifiedIds.length,
    deleted: deletedIds.length,
    createdIds,
    modifiedIds,
    deletedIds,
    problems,
    conflicts,
  };
}

/**
 * The parent of a created record: `row_number_parent_id` resolved through the rows of this push, or
 * `parent_id` as given. Undefined (after reporting) when the link cannot be resolved.
 */
function createdParent(
  record: PassengerChange,
  idByRowNumber: ReadonlyMap<number, number>,
  report: (field: string, message: string, value?: unknown) => void,
): number | null | undefined {
  const explicit = record.parent_id ?? null;
  if (explicit !== null && !isId(explicit)) {
    report('parent_id', 'parent_id must be the integer id of another passenger, or null', explicit);
    return undefined;
  }
  const rowNumber = record.row_number_parent_id ?? null;
  if (rowNumber === null) return explicit as number | null;
  const resolved = isId(rowNumber) ? idByRowNumber.get(rowNumber) : undefined;
  if (resolved === undefined) {
    report('row_number_parent_id', `row_number_parent_id ${String(rowNumber)} is not the row_number of a record created in this push`, rowNumber);
    return undefined;
  }
  if (explicit !== null && explicit !== resolved) {
    report('parent_id', `parent_id ${String(explicit)} disagrees with row_number_parent_id ${String(rowNumber)} (passenger ${resolved})`, explicit);
    return undefined;
  }
  return resolved;
}

function toStored(id: number, fields: NormalizedPassengerFields, parentId: number | null): StoredPassenger {
  return { id, ...fields, parent_id: parentId };
}

function samePassenger(a: StoredPassenger, b: StoredPassenger): boolean {
  return a.parent_id === b.parent_id && PASSENGER_FIELDS.every((field) => a[field] === b[field]);
}
