import { createHash } from 'node:crypto';
import type { AirportModel } from '../airports/airport.model';
import type { Principal } from '../auth';
import { isDuplicateKey } from '../db/duplicate-key';
import { conflict, notFound, preconditionFailed, unprocessable, type ErrorDetail } from '../errors';
import type { FlightDocument, FlightModel } from '../flights/flight.model';
import { formatLocalDateTime } from '../shared/local-time';
import type { PassengerRecord } from './passenger.record';
import { planPassengerChanges, type ChangeProblem, type PassengerChangeSet } from './passenger-list.plan';
import {
  PASSENGER_LIST_HISTORY_LIMIT,
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
  now?: () => Date;
}

type CurrentList = Pick<PassengerListDocument, 'version' | 'passengers' | 'requests'>;

/** A stored list as the interface's records: `idvolo` the flight, `row_number` the position. */
export function toPassengerRecords(flightId: number, passengers: readonly StoredPassenger[]): PassengerRecord[] {
  return passengers.map((passenger, index) => ({
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
  }));
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

  /** Applied pushes, newest first. */
  async history(flightId: number): Promise<PassengerListChange[]> {
    const list = await this.readList(flightId, ['history']);
    return [...(list?.history ?? [])].reverse();
  }

  /** The named fields of a flight's list (null when it has none yet); 404 for an unknown flight. */
  private async readList<Field extends keyof PassengerListDocument>(flightId: number, fields: Field[]): Promise<Pick<PassengerListDocument, Field> | null> {
    const projection = Object.fromEntries([['_id', 0], ...fields.map((field) => [field, 1])]);
    const [flight, list] = await Promise.all([
      this.deps.flights.exists({ flightId }).exec(),
      this.deps.passengerLists.findOne({ flightId }, projection).lean<Pick<PassengerListDocument, Field>>().exec(),
    ]);
    if (!flight) throw notFound(`Flight ${flightId} does not exist`);
    return list;
  }

  /**
   * Applies a change set all or nothing: plan it in memory against the version read, then write the
   * whole list in one update guarded by that version. A lost race re-reads and re-plans (so no
   * concurrent change is lost), unless the client pinned a version with If-Match (412).
   */
  async push(input: PushPassengerListInput): Promise<PushPassengerListResult> {
    const { flightId, changes, idempotencyKey } = input;
    const flight = await this.deps.flights.findOne({ flightId }, { _id: 0, departure: 1 }).lean<Pick<FlightDocument, 'departure'>>().exec();
    if (!flight) throw notFound(`Flight ${flightId} does not exist`);
    const departureDay = await this.departureDay(flight.departure);
    const requestHash = createHash('sha256').update(JSON.stringify(changes)).digest('hex');

    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const now = this.now();
      const doc = await this.deps.passengerLists
        .findOne({ flightId }, { _id: 0, version: 1, passengers: 1, requests: 1 })
        .lean<CurrentList>()
        .exec();
      const current: CurrentList = doc ?? { version: 0, passengers: [], requests: [] };
      const fresh = (current.requests ?? []).filter((request) => now.getTime() - new Date(request.at).getTime() < IDEMPOTENCY_WINDOW_MS);

      if (idempotencyKey) {
        const earlier = fresh.find((request) => request.key === idempotencyKey);
        if (earlier) {
          if (earlier.hash === requestHash) return earlier.response as PushPassengerListResult;
          throw conflict(`Idempotency-Key "${idempotencyKey}" was already used within 24 hours with a different body`, [
            { field: 'Idempotency-Key', message: 'use a new key for a different change set' },
          ]);
        }
      }
      if (input.expectedVersion != null && input.expectedVersion !== current.version) {
        throw staleVersion(input.expectedVersion, current.version);
      }

      const plan = planPassengerChanges(current.passengers, changes, { flightId, today: now });
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
        warnings: passengerListWarnings(plan.passengers, departureDay),
      };
      // A retried push whose records are all in place already changes nothing and writes nothing.
      if (plan.created + plan.modified + plan.deleted === 0 && !idempotencyKey) return result;

      result.version = current.version + 1;
      const change: PassengerListChange = {
        version: result.version,
        at: now,
        subject: input.principal.subject,
        tokenId: input.principal.tokenId ?? null,
        idempotencyKey: idempotencyKey ?? null,
        created: plan.created,
        modified: plan.modified,
        deleted: plan.deleted,
        passengers: plan.passengers.length,
      };
      const requests: RecentRequest[] = idempotencyKey ? [...fresh, { key: idempotencyKey, hash: requestHash, at: now, response: result }] : fresh;
      if (await this.write(flightId, current.version, plan.passengers, change, requests, input.principal.subject)) return result;
      if (input.expectedVersion != null) throw staleVersion(input.expectedVersion, current.version + 1);
      // Lost the race to another writer: back off a little and plan again on the new version.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, attempt * 2)));
    }
    throw conflict('The passenger list is changing too fast to apply this push; retry it');
  }

  /** One atomic update guarded by the version read; false when another writer got there first. */
  private async write(
    flightId: number,
    readVersion: number,
    passengers: StoredPassenger[],
    change: PassengerListChange,
    requests: RecentRequest[],
    subject: string,
  ): Promise<boolean> {
    const fields = { version: readVersion + 1, passengers, passengerCount: passengers.length, requests, updatedBy: subject };
    if (readVersion === 0) {
      try {
        // No list yet: the unique flightId index lets exactly one concurrent first push create it.
        await this.deps.passengerLists.create({ flightId, ...fields, history: [change] });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    }
    const { matchedCount } = await this.deps.passengerLists
      .updateOne(
        { flightId, version: readVersion },
        { $set: fields, $push: { history: { $each: [change], $slice: -PASSENGER_LIST_HISTORY_LIMIT } } },
      )
      .exec();
    return matchedCount === 1;
  }

  private async departureDay(departure: { icao: string; at: Date }): Promise<string> {
    const airport = await this.deps.airports.findOne({ icao: departure.icao }, { _id: 0, timezone: 1 }).lean<{ timezone: string }>().exec();
    return formatLocalDateTime(departure.at, airport?.timezone ?? 'UTC').slice(0, 10);
  }
}

function staleVersion(expected: number, actual: number) {
  return preconditionFailed(`If-Match names version ${expected} but the passenger list is at version ${actual}: read it again and reapply your changes`);
}

function summarise(prefix: string, problems: ChangeProblem[]): string {
  const first = problems[0];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  return `${prefix}: ${first.group}[${first.index}]${first.id !== null ? ` id ${first.id}` : ''} ${first.field}: ${first.message}${more}`;
}

function toDetail(problem: ChangeProblem): ErrorDetail {
  return { ...problem };
}
