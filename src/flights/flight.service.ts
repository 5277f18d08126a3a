import type { Connection } from 'mongoose';
import { ChangeEventType } from '../changes/change-event';
import type { ChangePublisher } from '../changes/change-publisher';
import { pendingEvent, placementOf } from '../changes/outbox';
import type { AirportModel } from '../airports/airport.model';
import { nextSequence, type CounterModel } from '../db/counter.model';
import { isDuplicateKey } from '../db/duplicate-key';
import { conflict, invalidInput, notFound, type ErrorDetail } from '../errors';
import type { PassengerListModel } from '../passengers/passenger-list.model';
import type { ResourceModel } from '../resources/resource.model';
import { checkColour, checkIcao, checkText } from '../shared/codes';
import type { InstantRange } from '../timeline/date-range';
import { MAX_FLIGHT_DURATION_MS, type ColourOverrides, type FlightDocument, type FlightModel } from './flight.model';

/** A flight as services return it (plain object). */
export interface FlightData {
  id: number;
  flightNumber: string;
  resourceId: number;
  departure: { icao: string; at: Date };
  arrival: { icao: string; at: Date };
  colours?: ColourOverrides | null;
}

/** The fields of a flight as a client writes them; on update every field is optional. */
export interface FlightFields {
  flightNumber: string;
  resourceId: number;
  departureIcao: string;
  departureAt: Date;
  arrivalIcao: string;
  arrivalAt: Date;
  backgroundColor?: string | null;
  textColor?: string | null;
  borderColor?: string | null;
}

export const FLIGHT_PROJECTION = { _id: 0, flightId: 1, flightNumber: 1, resourceId: 1, departure: 1, arrival: 1, colours: 1 } as const;

export function toFlightData(doc: FlightDocument): FlightData {
  return {
    id: doc.flightId,
    flightNumber: doc.flightNumber,
    resourceId: doc.resourceId,
    departure: doc.departure,
    arrival: doc.arrival,
    colours: doc.colours ?? null,
  };
}

/**
 * The filter of flights whose time in the air overlaps [from, to). Departure is bounded on both
 * sides (flights last at most MAX_FLIGHT_DURATION_MS), so the departure index serves it.
 */
export function overlapFilter(range: InstantRange): Record<string, unknown> {
  return {
    'departure.at': { $gte: new Date(range.from.getTime() - MAX_FLIGHT_DURATION_MS), $lt: range.to },
    'arrival.at': { $gt: range.from },
  };
}

export interface FlightServiceDeps {
  connection: Connection;
  flights: FlightModel;
  airports: AirportModel;
  resources: ResourceModel;
  passengerLists: PassengerListModel;
  counters: CounterModel;
  publisher: ChangePublisher;
}

/** Attempts of an update that keeps finding the flight moved under it before it gives up with a 409. */
const MAX_UPDATE_ATTEMPTS = 20;

/**
 * Flights and their changes. Each change writes its event into the flight's outbox in the same
 * atomic write (src/changes), and is published before the mutation answers, so whatever a client
 * does after the answer comes after the event in the feed.
 */
export class FlightService {
  constructor(private readonly deps: FlightServiceDeps) {}

  async list(range: InstantRange, resourceId?: number | null): Promise<FlightData[]> {
    const filter = { ...overlapFilter(range), ...(resourceId != null ? { resourceId } : {}) };
    const docs = await this.deps.flights
      .find(filter, FLIGHT_PROJECTION)
      .sort({ 'departure.at': 1, flightId: 1 })
      .lean<FlightDocument[]>()
      .exec();
    return docs.map(toFlightData);
  }

  async get(id: number): Promise<FlightData | null> {
    const doc = await this.deps.flights.findOne({ flightId: id }, FLIGHT_PROJECTION).lean<FlightDocument>().exec();
    return doc ? toFlightData(doc) : null;
  }

  /** The flight, or a 404 naming it. */
  async require(id: number): Promise<FlightData> {
    const flight = await this.get(id);
    if (!flight) throw notFound(`Flight ${id} does not exist`);
    return flight;
  }

  /** Creates a flight; `actor` is the token subject recorded in its event. */
  async create(input: FlightFields, actor: string): Promise<FlightData> {
    const fields = await this.validate(input);
    const flightId = await nextSequence(this.deps.counters, 'flight');
    const event = pendingEvent(ChangeEventType.FlightCreated, flightId, actor, { flight: placementOf(fields) });
    const doc = await this.deps.flights.create({ flightId, ...fields, outbox: [event] });
    await this.deps.publisher.publish('flight', flightId);
    return toFlightData(doc.toObject());
  }

  /**
   * Changes a flight. The write is guarded by the placement it read, so the event's `previous` is
   * exactly what the change replaced (a concurrent move makes it read and merge again).
   */
  async update(id: number, patch: Partial<FlightFields>, actor: string): Promise<FlightData> {
    for (let attempt = 1; attempt <= MAX_UPDATE_ATTEMPTS; attempt += 1) {
      const current = await this.require(id);
      const merged: FlightFields = {
        flightNumber: patch.flightNumber ?? current.flightNumber,
        resourceId: patch.resourceId ?? current.resourceId,
        departureIcao: patch.departureIcao ?? current.departure.icao,
        departureAt: patch.departureAt ?? current.departure.at,
        arrivalIcao: patch.arrivalIcao ?? current.arrival.icao,
        arrivalAt: patch.arrivalAt ?? current.arrival.at,
        backgroundColor: patch.backgroundColor !== undefined ? patch.backgroundColor : current.colours?.background,
        textColor: patch.textColor !== undefined ? patch.textColor : current.colours?.text,
        borderColor: patch.borderColor !== undefined ? patch.borderColor : current.colours?.border,
      };
      const fields = await this.validate(merged);
      const { colours, ...rest } = fields;
      const event = pendingEvent(ChangeEventType.FlightUpdated, id, actor, { flight: placementOf(fields), previous: placementOf(current) });
      const update = colours
        ? { $set: { ...rest, colours }, $push: { outbox: event } }
        : { $set: rest, $unset: { colours: 1 }, $push: { outbox: event } };
      const guard = { flightId: id, resourceId: current.resourceId, 'departure.at': current.departure.at, 'arrival.at': current.arrival.at };
      const doc = await this.deps.flights
        .findOneAndUpdate(guard, update, { returnDocument: 'after', projection: FLIGHT_PROJECTION })
        .lean<FlightDocument>()
        .exec();
      if (doc) {
        await this.deps.publisher.publish('flight', id);
        return toFlightData(doc);
      }
      // Moved or deleted since it was read: read again (a deleted flight is a 404 there).
    }
    throw conflict(`Flight ${id} is changing too fast to apply this update; retry it`);
  }

  /**
   * Deletes the flight and its passenger list, in an order that needs no transaction and that no
   * concurrent push can undo: first the list becomes a tombstone (no passenger data, no history,
   * `deletedAt` set) carrying the flight.deleted event, which fails every push's version-guarded
   * update and, through the unique flightId index, any insert of a new list; then the flight goes.
   * The tombstone write is the deletion's commit: publishing its event deletes the flight too, so a
   * crash in between is finished by whichever process publishes it (the outbox sweep, at the
   * latest). The tombstone stays (about 100 bytes): flight ids come from a counter, never reused.
   */
  async delete(id: number, actor: string): Promise<boolean> {
    const flight = await this.deps.flights.findOne({ flightId: id }, { _id: 0, resourceId: 1, departure: 1, arrival: 1 }).lean<FlightDocument>().exec();
    // Checked first, so that deleting an unknown id leaves no tombstone behind.
    if (!flight) throw notFound(`Flight ${id} does not exist`);
    await this.tombstoneList(id, pendingEvent(ChangeEventType.FlightDeleted, id, actor, { flight: placementOf(flight) }));
    const { deletedCount } = await this.deps.flights.deleteOne({ flightId: id }).exec();
    await this.deps.publisher.publish('passengerList', id);
    if (deletedCount === 0) throw notFound(`Flight ${id} does not exist`);
    return true;
  }

  /**
   * Turns the flight's list (or, without one, a new document) into a tombstone with the deletion's
   * event; unpublished events of the list's last pushes stay in its outbox, ahead of it. A list
   * already a tombstone (a delete repeated after a crash) keeps the event it has.
   */
  private async tombstoneList(id: number, event: ReturnType<typeof pendingEvent>): Promise<void> {
    const update = {
      $set: { version: 0, passengers: [], passengerCount: 0, history: [], historyDetails: [], requests: [], deletedAt: event.at },
      $push: { outbox: event },
    };
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      try {
        // Not an equality on deletedAt, so an insert does not copy it: the upsert creates the tombstone.
        await this.deps.passengerLists.updateOne({ flightId: id, deletedAt: { $not: { $type: 'date' } } }, update, { upsert: true }).exec();
        return;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        // A list exists that the filter did not match: a tombstone already, or one a push inserted just now.
        if (await this.deps.passengerLists.exists({ flightId: id, deletedAt: { $type: 'date' } }).exec()) return;
      }
    }
    throw conflict(`The passenger list of flight ${id} is changing too fast to delete the flight; retry it`);
  }

  private async validate(input: FlightFields): Promise<Omit<FlightDocument, 'flightId'>> {
    const problems: ErrorDetail[] = [];
    const departureIcao = checkIcao('departureIcao', input.departureIcao, problems);
    const arrivalIcao = checkIcao('arrivalIcao', input.arrivalIcao, problems);
    const flightNumber = checkText('flightNumber', input.flightNumber, problems, 10).toUpperCase();
    if (flightNumber && !/^[A-Z0-9]{2,10}$/.test(flightNumber.replace(/\s/g, ''))) {
      problems.push({ field: 'flightNumber', message: 'flightNumber must be 2 to 10 letters and digits, e.g. IFL123' });
    }
    const colours: ColourOverrides = {};
    if (input.backgroundColor) colours.background = checkColour('backgroundColor', input.backgroundColor, problems);
    if (input.textColor) colours.text = checkColour('textColor', input.textColor, problems);
    if (input.borderColor) colours.border = checkColour('borderColor', input.borderColor, problems);

    const departureAt = input.departureAt;
    const arrivalAt = input.arrivalAt;
    const duration = arrivalAt.getTime() - departureAt.getTime();
    if (!(duration > 0)) {
      problems.push({ field: 'arrivalAt', message: 'arrivalAt must be after departureAt' });
    } else if (duration > MAX_FLIGHT_DURATION_MS) {
      problems.push({ field: 'arrivalAt', message: 'arrivalAt must be within 24 hours of departureAt' });
    }

    const [resourceCount, knownAirports] = await Promise.all([
      this.deps.resources.countDocuments({ resourceId: input.resourceId }).exec(),
      this.deps.airports.find({ icao: { $in: [departureIcao, arrivalIcao] } }, { _id: 0, icao: 1 }).lean<{ icao: string }[]>().exec(),
    ]);
    if (resourceCount === 0) problems.push({ field: 'resourceId', message: `resourceId ${input.resourceId} is not a known resource` });
    const known = new Set(knownAirports.map((airport) => airport.icao));
    if (/^[A-Z]{4}$/.test(departureIcao) && !known.has(departureIcao)) {
      problems.push({ field: 'departureIcao', message: `departureIcao ${departureIcao} is not a known airport: add it with upsertAirport first` });
    }
    if (/^[A-Z]{4}$/.test(arrivalIcao) && !known.has(arrivalIcao)) {
      problems.push({ field: 'arrivalIcao', message: `arrivalIcao ${arrivalIcao} is not a known airport: add it with upsertAirport first` });
    }
    if (problems.length) throw invalidInput(`Invalid flight: ${problems.map((p) => p.message).join('; ')}`, problems);

    return {
      flightNumber: flightNumber.replace(/\s/g, ''),
      resourceId: input.resourceId,
      departure: { icao: departureIcao, at: departureAt },
      arrival: { icao: arrivalIcao, at: arrivalAt },
      ...(Object.keys(colours).length ? { colours } : {}),
    };
  }
}
