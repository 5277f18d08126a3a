import { createHash } from 'node:crypto';
import type { AirportModel } from '../airports/airport.model';
import { ChangeEventType, type PendingChangeEvent } from '../changes/change-event';
import type { ChangePublisher } from '../changes/change-publisher';
import { pendingEvent, placementOf } from '../changes/outbox';
import type { Principal } from '../auth';
import { isDocumentTooLarge } from '../db/document-too-large';
import { isDuplicateKey } from '../db/duplicate-key';
import { conflict, notFound, payloadTooLarge, preconditionFailed, unprocessable, type ErrorDetail } from '../errors';
import type { FlightDocument, FlightModel } from '../flights/flight.model';
import { formatLocalDateTime } from '../shared/local-time';
import type { PassengerRecord } from './passenger.record';
import { planPassengerChanges, type ChangeProblem, type PassengerChangeSet } from './passenger-list.plan';
import { boundHistoryDetails, describePassengerChanges, passengerListHistory, type HistoryDetailUpdate, type PassengerListHistoryEntry } from './passenger-list.audit';
import {
  PASSENGER_LIST_HISTORY_LIMIT,
  PASSENGER_LIST_REQUEST_LIMIT,
  STORED_TEXT_MAX,
  PASSENGER_LIST_EXPORT_LIMIT,
  type PassengerListExport,
  type LegacyRecentRequest,
  type PassengerListChange,
  type PassengerListDocument,
  type PassengerListModel,
  type RecentRequest,
  type StoredPassenger,
} from './passenger-list.model';
import { passengerListWarnings, type PassengerListWarningData } from './passenger-list.warnings';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Attempts of a push that keeps losing the version race before it gives up with a 409. */
const MAX_ATTEMPTS = 200;

export interface PassengerListData {
  flightId: number;
  version: number;
  passengers: PassengerRecord[];
}

export interface PushPassengerListInput {
  flightId: number;
  changes: PassengerChangeSet;
  /** The version the client last saw (If-Match); a stale one is a 412. */
  expectedVersion?: number | null;
  /**
   * Versions any of which the list may be at (If-Match listing several ETags), beside
   * expectedVersion; an empty list matches none (a 412, once the flight is known to exist).
   */
  expectedVersions?: readonly number[] | null;
  idempotencyKey?: string | null;
  principal: Principal;
}

export interface PushPassengerListResult {
  status: 'ok';
  flight_id: number;
  version: number;
  created: number;
  modified: number;
  deleted: number;
  passengers: number;
  warnings: PassengerListWarningData[];
}

export interface PassengerListServiceDeps {
  passengerLists: PassengerListModel;
  flights: FlightModel;
  airports: AirportModel;
  /** Most passengers one list may hold (PASSENGER_LIST_MAX_PASSENGERS); unlimited when absent. */
  maxPassengers?: number;
  now?: () => Date;
  /** Publishes the events pushes write into the list's outbox. */
  publisher: ChangePublisher;
}

type CurrentList = Pick<PassengerListDocument, 'version' | 'passengers' | 'requests' | 'deletedAt'> & {
  /** Only the sizes of the stored history details (see boundHistoryDetails). */
  historyDetails?: { bytes: number }[];
};

/**
 * A stored list as the interface's records: `idvolo` the flight, `row_number` the position. Spelled
 * out, not copied field by field from the declaration: a literal is two orders of magnitude faster
 * on a long list (bench/README.md, "Passenger field mapping"), and the annotation makes the compiler
 * refuse it the day the declaration gains or loses a field.
 */
export function toPassengerRecords(flightId: number, passengers: readonly StoredPassenger[]): PassengerRecord[] {
  return passengers.map((passenger, index) => {
    const record: PassengerRecord = {
      id: passenger.id,
      idvolo: flightId,
      surname: passenger.surname,
      name: passenger.name,
      luogonascita: passenger.luogonascita,
      nazionalita: passenger.nazionalita,
      typedoc: passenger.typedoc,
      numberdoc: passenger.numberdoc,
      date_born: passenger.date_born,
      scadenza: passenger.scadenza,
      issuingstate: passenger.issuingstate,
      email: passenger.email,
      phone: passenger.phone,
      is_carring_infant: passenger.is_carring_infant,
      gender: passenger.gender,
      parent_id: passenger.parent_id,
      row_number_parent_id: null,
      row_number: index + 1,
    };
    return record;
  });
}

export class PassengerListService {
  private readonly now: () => Date;

  constructor(private readonly deps: PassengerListServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async get(flightId: number): Promise<PassengerListData> {
    const list = await this.readList(flightId, ['version', 'passengers']);
    return { flightId, version: list?.version ?? 0, passengers: toPassengerRecords(flightId, list?.passengers ?? []) };
  }

  /** Lists of several flights in one query (the Flight.passengers field of a whole timeline). */
  async byFlights(flightIds: readonly number[]): Promise<Map<number, PassengerRecord[]>> {
    const lists = await this.deps.passengerLists
      .find({ flightId: { $in: [...flightIds] } }, { _id: 0, flightId: 1, passengers: 1 })
      .lean<Pick<PassengerListDocument, 'flightId' | 'passengers'>[]>()
      .exec();
    return new Map(lists.map((list) => [list.flightId, toPassengerRecords(list.flightId, list.passengers)]));
  }

  /** Passenger counts of several flights in one query (0 for a flight without a list). */
  async countsByFlight(flightIds: readonly number[]): Promise<Map<number, number>> {
    const lists = await this.deps.passengerLists
      .find({ flightId: { $in: [...flightIds] } }, { _id: 0, flightId: 1, passengerCount: 1 })
      .lean<Pick<PassengerListDocument, 'flightId' | 'passengerCount'>[]>()
      .exec();
    return new Map(lists.map((list) => [list.flightId, list.passengerCount]));
  }

  /** Applied pushes, newest first, with their detail where it is still kept. */
  async history(flightId: number): Promise<PassengerListHistoryEntry[]> {
    return passengerListHistory(await this.readList(flightId, ['history', 'historyDetails']));
  }

  /** Files made of the list, newest first. */
  async exports(flightId: number): Promise<PassengerListExport[]> {
    const list = await this.readList(flightId, ['exports']);
    return [...(list?.exports ?? [])].reverse().map((entry) => ({ ...entry, tokenId: entry.tokenId ?? null }));
  }

  /**
   * Adds an export to the list's export history, and touches nothing else of the list (not its
   * version, history or change feed). A flight without a list has no personal data to record; a
   * deleted flight's tombstone is left alone. Answers whether an entry was written.
   *
   * Kept in order of `at` (sorted on each push): concurrent exports may reach the database in
   * another order than they took their time, and the bound must drop the oldest by time.
   */
  async recordExport(flightId: number, entry: Omit<PassengerListExport, 'at'>): Promise<boolean> {
    const stored: PassengerListExport = { ...entry, at: this.now(), subject: clip(entry.subject), tokenId: entry.tokenId === null ? null : clip(entry.tokenId) };
    const result = await this.deps.passengerLists
      .updateOne({ flightId, deletedAt: null }, { $push: { exports: { $each: [stored], $sort: { at: 1 }, $slice: -PASSENGER_LIST_EXPORT_LIMIT } } })
      .exec();
    return result.modifiedCount === 1;
  }

  /** The named fields of a flight's list (null when it has none yet); 404 for an unknown flight. */
  private async readList<Field extends keyof PassengerListDocument>(flightId: number, fields: Field[]): Promise<Pick<PassengerListDocument, Field> | null> {
    const projection = Object.fromEntries([['_id', 0], ['deletedAt', 1], ...fields.map((field) => [field, 1])]);
    const [flight, list] = await Promise.all([
      this.deps.flights.exists({ flightId }).exec(),
      this.deps.passengerLists.findOne({ flightId }, projection).lean<Pick<PassengerListDocument, Field>>().exec(),
    ]);
    if (!flight || (list as { deletedAt?: Date | null } | null)?.deletedAt) throw notFound(`Flight ${flightId} does not exist`);
    return list;
  }

  /**
   * Applies a change set all or nothing: plan it in memory against the version read, then write the
   * whole list in one update guarded by that version. A lost race re-reads and re-plans (so no
   * concurrent change is lost), unless the client pinned a version with If-Match (412).
   *
   * The idempotency record travels in that same update, so it exists exactly when the change does,
   * on any MongoDB, with or without transactions. It is compact (see RecentRequest): a retry's answer
   * is rebuilt from it, with the warnings recomputed from the list, which are the first answer's own
   * while the list is still at the version the request produced.
   *
   * A push never writes to a deleted flight's list: the delete leaves a tombstone (see
   * FlightService.delete) that fails the update's filter and, through the unique flightId index,
   * the insert of a new list.
   */
  async push(input: PushPassengerListInput): Promise<PushPassengerListResult> {
    const { flightId, changes, idempotencyKey } = input;
    const flight = await this.deps.flights
      .findOne({ flightId }, { _id: 0, resourceId: 1, departure: 1, arrival: 1 })
      .lean<Pick<FlightDocument, 'resourceId' | 'departure' | 'arrival'>>()
      .exec();
    if (!flight) throw notFound(`Flight ${flightId} does not exist`);
    const target: PushTarget = {
      flight,
      departureDay: await this.departureDay(flight.departure),
      requestHash: createHash('sha256').update(JSON.stringify(changes)).digest('hex'),
      pinned: pinnedVersions(input),
    };

    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const outcome = await this.tryPush(input, target);
      if (!('lostAtVersion' in outcome)) return outcome;
      // With a key, read again first: the winner may have been this very request, sent twice. So
      // too when a later version is allowed: the winner may have made the list that version.
      const { pinned } = target;
      if (pinned && !idempotencyKey && !pinned.some((version) => version > outcome.lostAtVersion)) throw staleVersion(pinned, outcome.lostAtVersion + 1);
      // Lost the race to another writer (or to a delete): back off a little and plan again on what is there now.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, attempt * 2)));
    }
    throw conflict('The passenger list is changing too fast to apply this push; retry it');
  }

  /** One read-plan-write round: the answer, or the version read when another writer got there first. */
  private async tryPush(input: PushPassengerListInput, target: PushTarget): Promise<PushPassengerListResult | { lostAtVersion: number }> {
    const { flightId, changes, idempotencyKey } = input;
    const now = this.now();
    const doc = await this.deps.passengerLists
      .findOne({ flightId }, { _id: 0, version: 1, passengers: 1, requests: 1, deletedAt: 1, 'historyDetails.bytes': 1 })
      .lean<CurrentList>()
      .exec();
    if (doc?.deletedAt) throw notFound(`Flight ${flightId} does not exist`);
    const current: CurrentList = doc ?? { version: 0, passengers: [], requests: [] };
    const fresh = (current.requests ?? []).filter((request) => now.getTime() - new Date(request.at).getTime() < IDEMPOTENCY_WINDOW_MS);
    const earlier = idempotencyKey ? fresh.find((request) => request.key === idempotencyKey) : undefined;
    if (earlier) {
      if (earlier.hash === target.requestHash) return replay(flightId, earlier, current, target.departureDay);
      throw conflict(`Idempotency-Key "${idempotencyKey}" was already used within 24 hours with a different body`, [
        { field: 'Idempotency-Key', message: 'use a new key for a different change set' },
      ]);
    }
    if (target.pinned && !target.pinned.includes(current.version)) throw staleVersion(target.pinned, current.version);

    const plan = planPassengerChanges(current.passengers, changes, { flightId, today: now, maxPassengers: this.deps.maxPassengers });
    if (plan.problems.length) throw unprocessable(summarise('The change set was not applied', plan.problems), plan.problems.map(toDetail));
    if (plan.conflicts.length) throw conflict(summarise('The change set was not applied', plan.conflicts), plan.conflicts.map(toDetail));
    const result: PushPassengerListResult = {
      status: 'ok',
      flight_id: flightId,
      version: current.version,
      created: plan.created,
      modified: plan.modified,
      deleted: plan.deleted,
      passengers: plan.passengers.length,
      warnings: passengerListWarnings(plan.passengers, target.departureDay),
    };
    if (plan.created + plan.modified + plan.deleted === 0) {
      // A push whose records are all in place already changes nothing: no version, history or event.
      // Its key is remembered where a list exists (a retry must not apply its records over a later
      // change); without a list the push was empty, and so is any retry of it.
      if (!idempotencyKey || !doc) return result;
      const requests = recentRequests(input, target, fresh, now, { ...result, version: current.version });
      const { matchedCount } = await this.deps.passengerLists.updateOne({ flightId, version: current.version, deletedAt: null }, { $set: { requests } }).exec();
      return matchedCount === 1 ? result : { lostAtVersion: current.version };
    }

    result.version = current.version + 1;
    const record = pushRecord(input, target, { doc, current, fresh, plan, now, version: result.version });
    if (!(await this.write(flightId, doc !== null, current.version, plan.passengers, record.change, record.requests, record.event, record.details))) {
      return { lostAtVersion: current.version };
    }
    await this.deps.publisher.publish('passengerList', flightId);
    return result;
  }

  /**
   * One atomic write guarded by the version read; false when another writer, or a delete, got there
   * first. Pushes never upsert: a list is inserted only where none exists, so the unique flightId
   * index refuses it beside a deleted flight's tombstone.
   */
  private async write(
    flightId: number,
    exists: boolean,
    readVersion: number,
    passengers: StoredPassenger[],
    change: PassengerListChange,
    requests: RecentRequest[],
    event: PendingChangeEvent,
    details: HistoryDetailUpdate,
  ): Promise<boolean> {
    const fields = { version: readVersion + 1, passengers, passengerCount: passengers.length, requests, updatedBy: event.subject };
    try {
      if (!exists) {
        try {
          await this.deps.passengerLists.create({ flightId, ...fields, history: [change], historyDetails: details.append, outbox: [event] });
          return true;
        } catch (error) {
          if (isDuplicateKey(error)) return false;
          throw error;
        }
      }
      const { matchedCount } = await this.deps.passengerLists
        .updateOne(
          { flightId, version: readVersion, deletedAt: null },
          { $set: fields, $push: { history: { $each: [change], $slice: -PASSENGER_LIST_HISTORY_LIMIT }, historyDetails: { $each: details.append, $slice: details.slice }, outbox: event } },
        )
        .exec();
      return matchedCount === 1;
    } catch (error) {
      // The limits keep a list far below 16 MiB; this answers a list grown by an older release, or a lowered limit.
      if (isDocumentTooLarge(error)) {
        throw payloadTooLarge(`The passenger list of flight ${flightId} would exceed the database's document size limit: delete passengers before adding more`);
      }
      throw error;
    }
  }

  private async departureDay(departure: { icao: string; at: Date }): Promise<string> {
    const airport = await this.deps.airports.findOne({ icao: departure.icao }, { _id: 0, timezone: 1 }).lean<{ timezone: string }>().exec();
    return formatLocalDateTime(departure.at, airport?.timezone ?? 'UTC').slice(0, 10);
  }
}


/** The flight a push goes to, read once for all its attempts. */
interface PushTarget {
  flight: Pick<FlightDocument, 'resourceId' | 'departure' | 'arrival'>;
  departureDay: string;
  requestHash: string;
  /** The versions the list must be at (If-Match), or null for any. */
  pinned: readonly number[] | null;
}

/** expectedVersion and expectedVersions together, without repeats; null when neither pins a version. */
function pinnedVersions(input: Pick<PushPassengerListInput, 'expectedVersion' | 'expectedVersions'>): readonly number[] | null {
  if (input.expectedVersion == null && input.expectedVersions == null) return null;
  return [...new Set([...(input.expectedVersion != null ? [input.expectedVersion] : []), ...(input.expectedVersions ?? [])])];
}

/** What a push writes beside the list: its history entry and details, the idempotency records, the change event. */
function pushRecord(
  input: PushPassengerListInput,
  target: PushTarget,
  round: { doc: CurrentList | null; current: CurrentList; fresh: Array<RecentRequest | LegacyRecentRequest>; plan: ReturnType<typeof planPassengerChanges>; now: Date; version: number },
) {
  const { flightId, idempotencyKey } = input;
  const { doc, current, fresh, plan, now, version } = round;
  const counts = { created: plan.created, modified: plan.modified, deleted: plan.deleted, passengers: plan.passengers.length };
  const change: PassengerListChange = {
    version,
    at: now,
    subject: clip(input.principal.subject),
    tokenId: input.principal.tokenId != null ? clip(input.principal.tokenId) : null,
    idempotencyKey: idempotencyKey ?? null,
    ...counts,
  };
  const details = boundHistoryDetails((doc?.historyDetails ?? []).map((detail) => detail.bytes), describePassengerChanges(current.passengers, plan, version));
  const requests = recentRequests(input, target, fresh, now, { version, ...counts });
  const event = pendingEvent(
    ChangeEventType.PassengerListUpdated,
    flightId,
    change.subject,
    { flight: placementOf(target.flight), passengerList: { version, created: plan.createdIds, modified: plan.modifiedIds, deleted: plan.deletedIds, count: plan.passengers.length } },
    now,
  );
  return { change, details, requests, event };
}

/** The idempotency records a push writes: the fresh ones (compacted, if written by an older release) up to the limit, oldest dropped first, and its own if keyed. */
function recentRequests(
  input: PushPassengerListInput,
  target: PushTarget,
  fresh: Array<RecentRequest | LegacyRecentRequest>,
  now: Date,
  answer: Pick<RecentRequest, 'version' | 'created' | 'modified' | 'deleted' | 'passengers'>,
): RecentRequest[] {
  const kept = fresh.map((request) => compact(request, target.departureDay));
  if (!input.idempotencyKey) return kept.slice(-PASSENGER_LIST_REQUEST_LIMIT);
  const { version, created, modified, deleted, passengers } = answer;
  return [...kept.slice(-(PASSENGER_LIST_REQUEST_LIMIT - 1)), { key: input.idempotencyKey, hash: target.requestHash, at: now, version, created, modified, deleted, passengers, departureDay: target.departureDay }];
}

/** The first answer to a request, rebuilt from its record (or, for an older record, the answer it kept). */
function replay(flightId: number, record: RecentRequest | LegacyRecentRequest, current: CurrentList, departureDay: string): PushPassengerListResult {
  if ('response' in record && record.response && (record as Partial<RecentRequest>).version === undefined) {
    return record.response as PushPassengerListResult;
  }
  const stored = record as RecentRequest;
  return {
    status: 'ok',
    flight_id: flightId,
    version: stored.version,
    created: stored.created,
    modified: stored.modified,
    deleted: stored.deleted,
    passengers: stored.passengers,
    warnings: passengerListWarnings(current.passengers, stored.departureDay ?? departureDay),
  };
}

/** A record as this release stores it: an older one loses its stored answer and keeps what rebuilds it. */
function compact(record: RecentRequest | LegacyRecentRequest, departureDay: string): RecentRequest {
  if (!('response' in record) || !record.response) return record as RecentRequest;
  const { response } = record;
  return {
    key: record.key,
    hash: record.hash,
    at: record.at,
    version: response.version,
    created: response.created,
    modified: response.modified,
    deleted: response.deleted,
    passengers: response.passengers,
    departureDay,
  };
}

const clip = (text: string) => (text.length > STORED_TEXT_MAX ? text.slice(0, STORED_TEXT_MAX) : text);

function staleVersion(expected: readonly number[], actual: number) {
  const named = expected.length === 0 ? 'no version' : expected.length === 1 ? `version ${expected[0]}` : `versions ${expected.slice(0, 10).join(', ')}${expected.length > 10 ? ', …' : ''}`;
  return preconditionFailed(`If-Match names ${named} but the passenger list is at version ${actual}: read it again and reapply your changes`);
}

function summarise(prefix: string, problems: ChangeProblem[]): string {
  const first = problems[0];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  return `${prefix}: ${first.group}[${first.index}]${first.id !== null ? ` id ${first.id}` : ''} ${first.field}: ${first.message}${more}`;
}

function toDetail(problem: ChangeProblem): ErrorDetail {
  return { ...problem };
}
