import type { Connection } from 'mongoose';
import type { AirportModel } from '../airports/airport.model';
import { nextSequence, type CounterModel } from '../db/counter.model';
import { upsertWithRetry } from '../db/duplicate-key';
import { invalidInput, notFound, type ErrorDetail } from '../errors';
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
}

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

  async create(input: FlightFields): Promise<FlightData> {
    const fields = await this.validate(input);
    const flightId = await nextSequence(this.deps.counters, 'flight');
    const doc = await this.deps.flights.create({ flightId, ...fields });
    return toFlightData(doc.toObject());
  }

  async update(id: number, patch: Partial<FlightFields>): Promise<FlightData> {
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
    const update = colours ? { $set: { ...rest, colours } } : { $set: rest, $unset: { colours: 1 } };
    const doc = await this.deps.flights
      .findOneAndUpdate({ flightId: id }, update, { returnDocument: 'after', projection: FLIGHT_PROJECTION })
      .lean<FlightDocument>()
      .exec();
    if (!doc) throw notFound(`Flight ${id} does not exist`);
    return toFlightData(doc);
  }

  /**
   * Deletes the flight and its passenger list, in an order that needs no transaction and that no
   * concurrent push can undo: first the list becomes a tombstone (no passenger data, `deletedAt`
   * set), which fails every push's version-guarded update and, through the unique flightId index,
   * any insert of a new list; then the flight goes. Pushes that read the flight before it went then
   * answer 404 instead of re-creating the list. The tombstone stays (about 100 bytes): flight ids come
   * from a counter and are never reused. A crash between the two steps leaves the flight with an
   * empty, closed list; deleting it again finishes the job.
   */
  async delete(id: number): Promise<boolean> {
    // Checked first, so that deleting an unknown id leaves no tombstone behind.
    if (!(await this.deps.flights.exists({ flightId: id }).exec())) throw notFound(`Flight ${id} does not exist`);
    const tombstone = { flightId: id, version: 0, passengers: [], passengerCount: 0, history: [], requests: [], deletedAt: new Date() };
    await upsertWithRetry(() => this.deps.passengerLists.replaceOne({ flightId: id }, tombstone, { upsert: true }).exec());
    const { deletedCount } = await this.deps.flights.deleteOne({ flightId: id }).exec();
    if (deletedCount === 0) throw notFound(`Flight ${id} does not exist`);
    return true;
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
