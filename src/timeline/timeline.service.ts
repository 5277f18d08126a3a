import type { AirportDocument, AirportModel } from '../airports/airport.model';
import { FLIGHT_PROJECTION, overlapFilter } from '../flights/flight.service';
import type { FlightDocument, FlightModel } from '../flights/flight.model';
import { FALLBACK_COLOURS, type ResourceDocument, type ResourceModel } from '../resources/resource.model';
import { formatLocalDateTime } from '../shared/local-time';
import type { InstantRange } from './date-range';
import { TimelineView } from './timeline-event.type';

export const API_VERSION = 'v0';

export interface TimelineAirportData {
  icao: string;
  iata: string;
  country: string;
  city: string;
}

export interface TimelineEventData {
  resourceId: number;
  flightId: number;
  flightNumber: string;
  backgroundColor: string;
  textColor: string;
  borderColor: string;
  start: string;
  end: string;
  dep: TimelineAirportData;
  arr: TimelineAirportData;
  url: string;
  apiVersion: string;
  passengers: number;
}

export interface TimelineServiceDeps {
  flights: FlightModel;
  airports: AirportModel;
  resources: ResourceModel;
  /** Passenger counts of many flights in one query (the passenger-list service's). */
  countPassengers(flightIds: readonly number[]): Promise<Map<number, number>>;
  publicHost: string;
}

const SORT_BY_VIEW = {
  [TimelineView.CALENDAR]: { 'departure.at': 1, flightId: 1 },
  [TimelineView.RESOURCE]: { resourceId: 1, 'departure.at': 1, flightId: 1 },
} as const;

/**
 * Builds timeline entries in four database round trips whatever the number of flights: the
 * flights, then their airports, resources and passenger counts in parallel.
 */
export class TimelineService {
  constructor(private readonly deps: TimelineServiceDeps) {}

  /**
   * `timeZone` is the one zone every entry's `start` and `end` are shown in: a calendar draws both
   * on one axis, so airport-local ends would put a westbound arrival before its departure.
   */
  async events(view: TimelineView, range: InstantRange, timeZone: string): Promise<TimelineEventData[]> {
    const flights = await this.deps.flights
      .find(overlapFilter(range), FLIGHT_PROJECTION)
      .sort(SORT_BY_VIEW[view])
      .lean<FlightDocument[]>()
      .exec();
    if (flights.length === 0) return [];

    const icaos = new Set<string>();
    const resourceIds = new Set<number>();
    const flightIds: number[] = [];
    for (const flight of flights) {
      icaos.add(flight.departure.icao).add(flight.arrival.icao);
      resourceIds.add(flight.resourceId);
      flightIds.push(flight.flightId);
    }
    const [airports, resources, countByFlight] = await Promise.all([
      this.deps.airports.find({ icao: { $in: [...icaos] } }, { _id: 0, icao: 1, iata: 1, city: 1, country: 1, countryTag: 1 }).lean<AirportDocument[]>().exec(),
      this.deps.resources.find({ resourceId: { $in: [...resourceIds] } }, { _id: 0, resourceId: 1, colours: 1 }).lean<ResourceDocument[]>().exec(),
      this.deps.countPassengers(flightIds),
    ]);

    const airportByIcao = new Map(airports.map((airport) => [airport.icao, airport]));
    const timelineAirports = new Map<string, TimelineAirportData>();
    const timelineAirport = (icao: string): TimelineAirportData => {
      let entry = timelineAirports.get(icao);
      if (!entry) {
        const airport = airportByIcao.get(icao);
        entry = airport
          ? { icao, iata: airport.iata, country: `${airport.country} (${airport.countryTag ?? ''})`, city: airport.city }
          : { icao, iata: '', country: ' ()', city: '' };
        timelineAirports.set(icao, entry);
      }
      return entry;
    };
    const coloursByResource = new Map(resources.map((resource) => [resource.resourceId, resource.colours]));
    const url = this.deps.publicHost;

    return flights.map((flight) => {
      const defaults = coloursByResource.get(flight.resourceId) ?? FALLBACK_COLOURS;
      const own = flight.colours;
      return {
        resourceId: flight.resourceId,
        flightId: flight.flightId,
        flightNumber: flight.flightNumber,
        backgroundColor: own?.background ?? defaults.background,
        textColor: own?.text ?? defaults.text,
        borderColor: own?.border ?? defaults.border,
        start: formatLocalDateTime(flight.departure.at, timeZone),
        end: formatLocalDateTime(flight.arrival.at, timeZone),
        dep: timelineAirport(flight.departure.icao),
        arr: timelineAirport(flight.arrival.icao),
        url,
        apiVersion: API_VERSION,
        passengers: countByFlight.get(flight.flightId) ?? 0,
      };
    });
  }
}
