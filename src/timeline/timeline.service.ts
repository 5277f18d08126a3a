import type { PipelineStage } from 'mongoose';
import type { AirportDocument, AirportModel } from '../airports/airport.model';
import { FLIGHT_PROJECTION, overlapFilter } from '../flights/flight.service';
import type { FlightDocument, FlightModel } from '../flights/flight.model';
import { passengerCountLookup, passengerCountOf, type JoinedPassengerCount } from '../passengers/passenger-count.pipeline';
import type { PassengerListModel } from '../passengers/passenger-list.model';
import { FALLBACK_COLOURS, type ResourceDocument, type ResourceModel } from '../resources/resource.model';
import { formatLocalDateTime } from '../shared/local-time';
import type { InstantRange } from './date-range';
import { aggregateInOneReply, mapAggregateInOneReply, mapOneReply, oneReplyLength } from './one-reply-aggregate';
import { readTimelineFlight, readTimelineReferences, type TimelineFlightReferences } from './timeline-flight-reader';
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
  /** Only its collection is named: the passenger counts are read by the flights' aggregate. */
  passengerLists: PassengerListModel;
  publicHost: string;
  /** The server's time limit for the flights' aggregate, as every other read gets it (src/db/database.ts). */
  maxTimeMs: number;
}

/** A flight as the timeline's aggregate returns it: the fields an entry shows, and its passenger count. */
type TimelineFlight = Pick<FlightDocument, 'flightId' | 'flightNumber' | 'resourceId' | 'departure' | 'arrival' | 'colours'> & { passengerList: JoinedPassengerCount };

/** What the timeline reads of an airport, and of a resource (one command reads both). */
type AirportReference = Pick<AirportDocument, 'icao' | 'iata' | 'city' | 'country' | 'countryTag'>;
type ResourceReference = Pick<ResourceDocument, 'resourceId' | 'colours'>;

const SORT_BY_VIEW = {
  [TimelineView.CALENDAR]: { 'departure.at': 1, flightId: 1 },
  [TimelineView.RESOURCE]: { resourceId: 1, 'departure.at': 1, flightId: 1 },
} as const;

/**
 * Builds timeline entries in two database round trips whatever the number of flights: the
 * flights with their passenger counts (one aggregate), then their airports and resources (another).
 */
export class TimelineService {
  constructor(private readonly deps: TimelineServiceDeps) {}

  /**
   * `timeZone` is the one zone every entry's `start` and `end` are shown in: a calendar draws both
   * on one axis, so airport-local ends would put a westbound arrival before its departure.
   */
  async events(view: TimelineView, range: InstantRange, timeZone: string): Promise<TimelineEventData[]> {
    const pipeline: PipelineStage[] = [
      { $match: overlapFilter(range) },
      { $sort: SORT_BY_VIEW[view] },
      { $project: FLIGHT_PROJECTION },
      passengerCountLookup(this.deps.passengerLists.collection.collectionName, 'flightId', 'passengerList'),
    ];
    const reply = await aggregateInOneReply<FlightDocument, TimelineFlight>(this.deps.flights, pipeline, this.deps.maxTimeMs);
    if (oneReplyLength(reply) === 0) return [];

    // The flights' airports and resources first, read from their BSON without decoding the flights
    // (src/timeline/timeline-flight-reader.ts), then one command for both ($unionWith): one round
    // trip. The entries are built only after it, from the last reply to the answer's written bytes
    // in one turn of the event loop (a synchronous build, then graphql-jit's completion and the JSON
    // writer: no I/O in between): no decoded flight or entry waits on the database, so requests
    // that run at once never hold their entries at the same time, and no entry lives long enough
    // to be promoted out of V8's young generation (docs/performance.md, "Scaling to 20,000 flights").
    const airportsByIcao = new Map<string, TimelineAirportData>();
    const airportOf = (icao: string): TimelineAirportData => {
      let airport = airportsByIcao.get(icao);
      if (!airport) airportsByIcao.set(icao, (airport = { icao, iata: '', country: ' ()', city: '' }));
      return airport;
    };
    const resourceIds = new Set<number>();
    const found: TimelineFlightReferences = { departureIcao: '', arrivalIcao: '', resourceId: 0 };
    const note = (departureIcao: string, arrivalIcao: string, resourceId: number) => {
      airportOf(departureIcao);
      airportOf(arrivalIcao);
      resourceIds.add(resourceId);
    };
    if ('bson' in reply) {
      for (const bytes of reply.bson) {
        if (readTimelineReferences(bytes, found)) note(found.departureIcao, found.arrivalIcao, found.resourceId);
        else {
          const flight = readTimelineFlight(bytes) as TimelineFlight;
          note(flight.departure.icao, flight.arrival.icao, flight.resourceId);
        }
      }
    } else {
      for (const flight of reply.decoded) note(flight.departure.icao, flight.arrival.icao, flight.resourceId);
    }

    const coloursByResource = new Map<number, ResourceDocument['colours']>();
    const references: PipelineStage[] = [
      { $match: { icao: { $in: [...airportsByIcao.keys()] } } },
      { $project: { _id: 0, icao: 1, iata: 1, city: 1, country: 1, countryTag: 1 } },
      {
        $unionWith: {
          coll: this.deps.resources.collection.collectionName,
          pipeline: [{ $match: { resourceId: { $in: [...resourceIds] } } }, { $project: { _id: 0, resourceId: 1, colours: 1 } }],
        },
      },
    ];
    await mapAggregateInOneReply(this.deps.airports, references, this.deps.maxTimeMs, (reference: AirportReference | ResourceReference) => {
      if ('icao' in reference) {
        const shown = airportsByIcao.get(reference.icao);
        if (!shown) return;
        shown.iata = reference.iata;
        shown.country = `${reference.country} (${reference.countryTag ?? ''})`;
        shown.city = reference.city;
      } else {
        coloursByResource.set(reference.resourceId, reference.colours);
      }
    });

    // Each flight becomes its entry as it is decoded (no decoded flight outlives its entry), by a
    // reader of exactly this shape; airports are the one object each entry of that airport shares,
    // colours the flight's own, else its resource's.
    const url = this.deps.publicHost;
    const entries = mapOneReply(
      reply,
      (flight: TimelineFlight): TimelineEventData => {
        const own = flight.colours;
        // A colour the flight does not set (absent, or empty: colours are CSS names) is its resource's.
        const resource = own?.background && own.text && own.border ? undefined : (coloursByResource.get(flight.resourceId) ?? FALLBACK_COLOURS);
        return {
          resourceId: flight.resourceId,
          flightId: flight.flightId,
          flightNumber: flight.flightNumber,
          backgroundColor: own?.background || resource!.background,
          textColor: own?.text || resource!.text,
          borderColor: own?.border || resource!.border,
          start: formatLocalDateTime(flight.departure.at, timeZone),
          end: formatLocalDateTime(flight.arrival.at, timeZone),
          dep: airportOf(flight.departure.icao),
          arr: airportOf(flight.arrival.icao),
          url,
          apiVersion: API_VERSION,
          passengers: passengerCountOf(flight.passengerList),
        };
      },
      readTimelineFlight,
    );
    return entries;
  }
}
