import { PASSENGER_FIELD_NAMES, type PassengerRecordFieldName } from './passenger.fields';
import { normalizePassenger, type NormalizedPassengerFields } from './passenger.normalize';
import type { StoredPassenger } from './passenger-list.model';

/** The three groups of a push body. */
export type ChangeGroup = 'created' | 'modified' | 'deleted';

/** A record of a push as received (every field optional; see PassengerInput). */
export type PassengerChange = Partial<Record<PassengerRecordFieldName | 'id', unknown>>;

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
   * named in `modified` whose stored content changed (one sent back as stored is no modification) and records deleted. An id both
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
export function planPassengerChanges(current: readonly StoredPassenger[], changes: PassengerChangeSet, context: PlanContext): ChangePlan {
  const plan = new Planner(current, context);
  changes.deleted.forEach((entry, index) => plan.delete(entry, index));
  changes.modified.forEach((record, index) => plan.modify(record, index));
  plan.readRowNumbers(changes.created);
  changes.created.forEach((record, index) => plan.create(record, index));
  plan.dropDeleted();
  plan.checkLimit();
  plan.checkLinks();
  return plan.result();
}

interface PlanContext {
  flightId: number;
  today: Date | string;
  maxPassengers?: number;
}

/** The state of one planning: the list as it becomes, where each touched record came from, and the problems found. */
class Planner {
  private readonly problems: ChangeProblem[] = [];
  private readonly conflicts: ChangeProblem[] = [];
  private readonly stored: Map<number, StoredPassenger>;
  private readonly next: Map<number, StoredPassenger>;
  /** The element of the push that touched each record (problems about links name it). */
  private readonly origins = new Map<number, Origin>();
  private readonly modifiedIds: number[] = [];
  private readonly modifying = new Set<number>();
  private readonly deleting = new Map<number, Origin>();
  /** row_number of created records (as the upload returns them), for row_number_parent_id links. */
  private readonly idByRowNumber = new Map<number, number>();
  private readonly seenCreatedIds = new Set<number>();
  private readonly added: { origin: Origin; id: number }[] = [];

  constructor(
    current: readonly StoredPassenger[],
    private readonly context: PlanContext,
  ) {
    this.stored = new Map(current.map((passenger) => [passenger.id, passenger]));
    this.next = new Map(this.stored);
  }

  private problem(origin: Origin, id: number | null, field: string, message: string, value?: unknown): void {
    this.problems.push({ group: origin.group, index: origin.index, id, field, message, ...(value !== undefined ? { value } : {}) });
  }

  private report(origin: Origin, id: number | null, fieldProblems: { field: string; value: unknown; message: string }[]): void {
    for (const item of fieldProblems) this.problem(origin, id, item.field, item.message, item.value);
  }

  private checkFlight(origin: Origin, id: number | null, record: PassengerChange): void {
    if (record.idvolo !== undefined && record.idvolo !== null && record.idvolo !== this.context.flightId) {
      this.problem(origin, id, 'idvolo', `idvolo ${String(record.idvolo)} does not match the flight ${this.context.flightId} of the path`, record.idvolo);
    }
  }

  /** deleted: ids, or objects with an id. */
  delete(entry: unknown, index: number): void {
    const origin = { group: 'deleted' as const, index };
    const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : entry;
    if (!isId(id)) this.problem(origin, null, 'id', 'expected a positive integer id, or an object with one', entry);
    else if (this.deleting.has(id)) this.problem(origin, id, 'id', `passenger ${id} is listed twice in deleted`);
    else if (!this.stored.has(id)) this.problem(origin, id, 'id', `passenger ${id} does not exist on flight ${this.context.flightId}`);
    else this.deleting.set(id, origin);
  }

  /** modified: present fields replace stored ones; the merged record is validated whole. */
  modify(record: PassengerChange, index: number): void {
    const origin = { group: 'modified' as const, index };
    const id = record.id;
    if (!isId(id)) return this.problem(origin, null, 'id', 'a modified record needs the integer id of an existing passenger', id ?? null);
    if (this.modifying.has(id)) return this.problem(origin, id, 'id', `passenger ${id} is modified twice in one push`);
    this.modifying.add(id);
    const before = this.stored.get(id);
    if (!before) return this.problem(origin, id, 'id', `passenger ${id} does not exist on flight ${this.context.flightId}`);
    if (this.deleting.has(id)) return this.problem(origin, id, 'id', `passenger ${id} is both modified and deleted`);
    this.checkFlight(origin, id, record);
    const merged: Record<string, unknown> = { ...before };
    for (const field of PASSENGER_FIELD_NAMES) if (record[field] !== undefined) merged[field] = record[field];
    const { value, problems: fieldProblems } = normalizePassenger(merged, { today: this.context.today });
    this.report(origin, id, fieldProblems);
    if (record.parent_id !== undefined && record.parent_id !== null && !isId(record.parent_id)) {
      // Reported once: the record does not enter the plan, so the link checks do not name it again.
      return this.problem(origin, id, 'parent_id', 'parent_id must be the integer id of another passenger, or null', record.parent_id);
    }
    if (!value) return;
    const parentId = record.parent_id === undefined ? before.parent_id : (record.parent_id as number | null);
    const after = toStored(id, value, parentId);
    this.origins.set(id, origin);
    // A record sent back as it is stored changes nothing: no modification to count, version or record.
    if (samePassenger(before, after)) return;
    this.next.set(id, after);
    this.modifiedIds.push(id);
  }

  readRowNumbers(created: readonly PassengerChange[]): void {
    created.forEach((record, index) => {
      if (record.row_number === undefined || record.row_number === null || !isId(record.id)) return;
      const origin = { group: 'created' as const, index };
      if (!isId(record.row_number)) this.problem(origin, record.id, 'row_number', 'row_number must be a positive integer', record.row_number);
      else if (this.idByRowNumber.has(record.row_number)) this.problem(origin, record.id, 'row_number', `row_number ${record.row_number} is used by two created records`);
      else this.idByRowNumber.set(record.row_number, record.id);
    });
  }

  /** created: client-chosen ids; a retry of an identical record is a no-op. */
  create(record: PassengerChange, index: number): void {
    const origin = { group: 'created' as const, index };
    const id = record.id;
    if (!isId(id)) return this.problem(origin, null, 'id', 'a created record needs an integer id (from 1) chosen by the client, unique within the flight', id ?? null);
    if (this.seenCreatedIds.has(id)) return this.problem(origin, id, 'id', `id ${id} is used by two created records`);
    this.seenCreatedIds.add(id);
    this.checkFlight(origin, id, record);
    const { value, problems: fieldProblems } = normalizePassenger(record as Record<string, unknown>, { today: this.context.today });
    this.report(origin, id, fieldProblems);
    const parentId = createdParent(record, this.idByRowNumber, (field, message, given) => this.problem(origin, id, field, message, given));
    if (!value || parentId === undefined) return;
    const candidate = toStored(id, value, parentId);
    const existing = this.stored.get(id);
    this.origins.set(id, origin);
    if (existing && !this.deleting.has(id)) {
      if (!samePassenger(existing, candidate)) {
        this.conflicts.push({ group: 'created', index, id, field: 'id', message: `passenger ${id} already exists on flight ${this.context.flightId} with different content: use modified to change it` });
      }
      return;
    }
    this.next.set(id, candidate);
    this.added.push({ origin, id });
  }

  /** A record deleted and created again by the same push is replaced (in place), not lost. */
  dropDeleted(): void {
    const createdIdSet = new Set(this.added.map(({ id }) => id));
    for (const id of this.deleting.keys()) if (!createdIdSet.has(id)) this.next.delete(id);
  }

  /** The limit keeps the stored document bounded whatever clients send; it names the first record over it. */
  checkLimit(): void {
    const max = this.context.maxPassengers ?? Number.POSITIVE_INFINITY;
    const size = this.next.size;
    if (size <= max || !this.added.length) return;
    const first = Math.max(0, this.added.length - (size - max));
    const { origin, id } = this.added[first];
    const rest = this.added.length - first - 1;
    this.problem(origin, id, 'id', `the list would hold ${size} passengers, over the limit of ${max} a flight may have: ${rest ? `this record and the ${rest} created after it do not fit` : 'this record does not fit'}`);
  }

  /** Links in the resulting list: no dangling, self, circular or child-of-child links. */
  checkLinks(): void {
    for (const passenger of this.next.values()) {
      const parentId = passenger.parent_id;
      if (parentId === null) continue;
      const origin = this.origins.get(passenger.id);
      if (parentId === passenger.id) {
        if (origin) this.problem(origin, passenger.id, 'parent_id', `passenger ${passenger.id} names itself as parent`);
        continue;
      }
      const parent = this.next.get(parentId);
      if (!parent) {
        const deletedParent = this.deleting.get(parentId);
        if (deletedParent) this.problem(deletedParent, parentId, 'id', `passenger ${parentId} cannot be deleted: passenger ${passenger.id} names it as parent (delete or relink the child too)`);
        else if (origin) this.problem(origin, passenger.id, 'parent_id', `parent_id ${parentId} is not a passenger of flight ${this.context.flightId}`);
        continue;
      }
      if (parent.parent_id === passenger.id) {
        if (origin) this.problem(origin, passenger.id, 'parent_id', `circular parent link between passengers ${passenger.id} and ${parentId}`);
      } else if (parent.parent_id !== null) {
        if (origin) this.problem(origin, passenger.id, 'parent_id', `parent ${parentId} is itself linked to a parent: a parent must be an adult without a parent link`);
      }
    }
  }

  result(): ChangePlan {
    const createdIds = this.added.map(({ id }) => id);
    const deletedIds = [...this.deleting.keys()];
    return {
      passengers: [...this.next.values()],
      created: createdIds.length,
      modified: this.modifiedIds.length,
      deleted: deletedIds.length,
      createdIds,
      modifiedIds: this.modifiedIds,
      deletedIds,
      problems: this.problems,
      conflicts: this.conflicts,
    };
  }
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
  return a.parent_id === b.parent_id && PASSENGER_FIELD_NAMES.every((field) => a[field] === b[field]);
}
