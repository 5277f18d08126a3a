import type { Document } from 'bson';
import type { PipelineStage } from 'mongoose';
import type { AirportDocument, AirportModel } from '../airports/airport.model';
import { FLIGHT_PROJECTION, overlapFilter } from '../flights/flight.service';
import type { FlightModel } from '../flights/flight.model';
import { passengerCountLookup } from '../passengers/passenger-count.pipeline';
import type { PassengerListModel } from '../passengers/passenger-list.model';
import { FALLBACK_COLOURS, type ResourceDocument, type ResourceModel } from '../resources/resource.model';
import { formatLocalTime } from '../shared/local-time';
import type { InstantRange } from './date-range';
import type { LargeReadGate } from './large-read-gate';
import { mapAggregateInOneReply } from './one-reply-aggregate';
import { emptyTimelineFlight, readTimelineFlight, timelineFlightFields, type TimelineFlightFields } from './timeline-flight-reader';
import { TimelineView } from './timeline-view';

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
  /** Where large reads take their turn (TIMELINE_LARGE_READS_MAX). */
  largeReads: LargeReadGate;
  /** A read is large from this many estimated entries on (TIMELINE_LARGE_READ_ENTRIES). */
  largeReadEntries: number;
  /** Flights a day a range is assumed to hold, as the cost estimate assumes (GRAPHQL_COST_FLIGHTS_PER_DAY). */
  flightsPerDay: number;
}

/** The request a read serves, as far as its turn among large reads goes. */
export interface TimelineRequest {
  /**
   * Aborted when the request's answer has been handed to its socket, or its client went away: a
   * large read's turn is released then (its answer's bytes are the last thing it holds). Without it
   * (a caller outside HTTP) the turn is released when the entries are returned.
   */
  ended?: AbortSignal;
  /** Longest a large read may wait for its turn, in ms (what is left of GRAPHQL_TIMEOUT_MS). */
  waitLimitMs: number;
  /** GRAPHQL_TIMEOUT_MS, named by the QUERY_TIMEOUT of a wait that spent it. */
  timeLimitMs: number;
}

/** What the timeline reads of an airport, and of a resource (one command reads both). */
type AirportReference = Pick<AirportDocument, 'icao' | 'iata' | 'city' | 'country' | 'countryTag'>;
type ResourceReference = Pick<ResourceDocument, 'resourceId' | 'colours'>;

/** A colour the flight does not set (colours are CSS names, never empty): its resource's, filled in once the resources are read. */
const RESOURCE_COLOUR = '';

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
  async events(view: TimelineView, range: InstantRange, timeZone: string, request?: TimelineRequest): Promise<TimelineEventData[]> {
    const large = this.isLarge(range);
    if (!request || !large) return this.read(view, range, timeZone, large);
    const { ended } = request;
    if (!ended) {
      const release = await this.deps.largeReads.enter(request);
      try {
        return await this.read(view, range, timeZone, large);
      } finally {
        release();
      }
    }
    // One turn per request, whatever its large reads (aliases): a request waiting for a second turn
    // while holding its first until its answer is sent would wait for itself.
    let turn = this.turns.get(ended);
    if (!turn) this.turns.set(ended, (turn = this.turnUntilEnd(request, ended)));
    await turn;
    return this.read(view, range, timeZone, large);
  }

  /** Each request's turn, for as long as the request lives. */
  private readonly turns = new WeakMap<AbortSignal, Promise<void>>();

  /** Takes a turn and gives it back when the request ends (its answer sent, or its client gone). */
  private async turnUntilEnd(request: TimelineRequest, ended: AbortSignal): Promise<void> {
    const release = await this.deps.largeReads.enter(request);
    if (ended.aborted) release();
    else ended.addEventListener('abort', release, { once: true });
  }

  /** Large reads holding a turn, and waiting for one (the /metrics gauges). */
  largeReads(): { inFlight: number; waiting: number } {
    return this.deps.largeReads.stats();
  }

  /**
   * Large: the range's days times the flights a day assumed reach TIMELINE_LARGE_READ_ENTRIES. An
   * estimate made before any read, so that the read's reply, its entries and its answer all come
   * within the turn; where ranges hold more flights a day than assumed, set
   * GRAPHQL_COST_FLIGHTS_PER_DAY to what they hold (the cost limit wants it too).
   */
  private isLarge(range: InstantRange): boolean {
    const days = Math.max(1, Math.ceil((range.to.getTime() - range.from.getTime()) / 86_400_000));
    return days * this.deps.flightsPerDay >= this.deps.largeReadEntries;
  }

  /** Airports and resources earlier reads showed: what a large read asks for beside its flights. */
  private readonly shownReferences = new ReferenceKeys(SHOWN_REFERENCES_MAX);

  private async read(view: TimelineView, range: InstantRange, timeZone: string, large: boolean): Promise<TimelineEventData[]> {
    const pipeline: PipelineStage[] = [
      { $match: overlapFilter(range) },
      { $sort: SORT_BY_VIEW[view] },
      { $project: FLIGHT_PROJECTION },
      passengerCountLookup(this.deps.passengerLists.collection.collectionName, 'flightId', 'passengerList'),
    ];
    // A large read asks for the airports and resources earlier reads showed in the same moment as
    // for its flights (fresh values: only which ones to ask for is remembered), so that once its
    // flights arrive nothing is awaited between its first entry and its answer: its turn never sits
    // through a second round trip with its entries alive, which the other reads' work would find at
    // its young collections and promote (figures: docs/performance.md, "A large read asks for its
    // airports and resources beside its flights"). A flight of an airport or resource not among
    // them costs the second round trip for those alone. Small reads ask for exactly what their
    // flights name, after them.
    const shown = large ? this.shownReferences.keys() : undefined;
    const early = shown && shown.icaos.length > 0 ? this.readReferences(shown.icaos, shown.resourceIds) : undefined;
    // Awaited only once the flights are in: until then its failure is handled here, so that it is
    // no unhandled rejection when the flights fail first (the await below still throws it).
    early?.catch(() => undefined);

    // Each flight's BSON is read straight into its entry's values (no object per flight but the
    // entry: src/timeline/timeline-flight-reader.ts). What comes from other collections is filled
    // in afterwards: airports in the one object each entry of that airport shares, resource
    // colours where the flight has none of its own.
    const airportsByIcao = new Map<string, TimelineAirportData>();
    const airportOf = (icao: string): TimelineAirportData => {
      let airport = airportsByIcao.get(icao);
      if (!airport) airportsByIcao.set(icao, (airport = { icao, iata: '', country: ' ()', city: '' }));
      return airport;
    };
    const resourceIds = new Set<number>();
    const url = this.deps.publicHost;
    // One record the reader fills for each flight in turn; the entry copies what it shows.
    const fields = emptyTimelineFlight();
    const reader = { fromBytes: (bytes: Uint8Array) => readTimelineFlight(bytes, fields), fromDocument: (flight: Document) => timelineFlightFields(flight, fields) };
    const entries = await mapAggregateInOneReply(this.deps.flights, pipeline, this.deps.maxTimeMs, (flight: TimelineFlightFields): TimelineEventData => {
      resourceIds.add(flight.resourceId);
      return {
        resourceId: flight.resourceId,
        flightId: flight.flightId,
        flightNumber: flight.flightNumber,
        backgroundColor: flight.background ?? RESOURCE_COLOUR,
        textColor: flight.text ?? RESOURCE_COLOUR,
        borderColor: flight.border ?? RESOURCE_COLOUR,
        start: formatLocalTime(flight.departureAt, timeZone),
        end: formatLocalTime(flight.arrivalAt, timeZone),
        dep: airportOf(flight.departureIcao),
        arr: airportOf(flight.arrivalIcao),
        url,
        apiVersion: API_VERSION,
        passengers: flight.passengerCount,
      };
    }, reader);
    if (entries.length === 0) return [];
    this.shownReferences.learn(airportsByIcao.keys(), resourceIds);

    const coloursByResource = new Map<number, ResourceDocument['colours']>();
    const fill = (reference: AirportReference | ResourceReference) => {
      if ('icao' in reference) {
        const airport = airportsByIcao.get(reference.icao);
        if (!airport) return;
        airport.iata = reference.iata;
        airport.country = `${reference.country} (${reference.countryTag ?? ''})`;
        airport.city = reference.city;
      } else {
        coloursByResource.set(reference.resourceId, reference.colours);
      }
    };
    let icaos = [...airportsByIcao.keys()];
    let ids = [...resourceIds];
    if (early) {
      (await early).forEach(fill);
      // What it did not ask for; what it asked for and did not find is unknown, as it would be to the exact question.
      icaos = icaos.filter((icao) => !shown!.icaoSet.has(icao));
      ids = ids.filter((id) => !shown!.resourceIdSet.has(id));
    }
    if (icaos.length > 0 || ids.length > 0) (await this.readReferences(icaos, ids)).forEach(fill);
    for (const entry of entries) {
      if (entry.backgroundColor !== RESOURCE_COLOUR && entry.textColor !== RESOURCE_COLOUR && entry.borderColor !== RESOURCE_COLOUR) continue;
      const defaults = coloursByResource.get(entry.resourceId) ?? FALLBACK_COLOURS;
      if (entry.backgroundColor === RESOURCE_COLOUR) entry.backgroundColor = defaults.background;
      if (entry.textColor === RESOURCE_COLOUR) entry.textColor = defaults.text;
      if (entry.borderColor === RESOURCE_COLOUR) entry.borderColor = defaults.border;
    }
    return entries;
  }

  /** The airports, then the resources, of these codes and ids, in one command ($unionWith): one round trip. */
  private readReferences(icaos: string[], resourceIds: number[]): Promise<Array<AirportReference | ResourceReference>> {
    const references: PipelineStage[] = [
      { $match: { icao: { $in: icaos } } },
      { $project: { _id: 0, icao: 1, iata: 1, city: 1, country: 1, countryTag: 1 } },
      {
        $unionWith: {
          coll: this.deps.resources.collection.collectionName,
          pipeline: [{ $match: { resourceId: { $in: resourceIds } } }, { $project: { _id: 0, resourceId: 1, colours: 1 } }],
        },
      },
    ];
    return mapAggregateInOneReply(this.deps.airports, references, this.deps.maxTimeMs, (reference: AirportReference | ResourceReference) => reference);
  }
}

/** Airports and resources a large read asks for before it knows its flights: at most this many of each. */
const SHOWN_REFERENCES_MAX = 2_000;

/**
 * The ICAO codes and resource ids timeline reads have shown, up to a bound of each (what comes
 * after is asked for by the reads that show it, as before). Only keys: every read asks the database
 * for their current values.
 */
class ReferenceKeys {
  private readonly icaos = new Set<string>();
  private readonly resourceIds = new Set<number>();
  private current: { icaos: string[]; resourceIds: number[]; icaoSet: ReadonlySet<string>; resourceIdSet: ReadonlySet<number> } | undefined;

  constructor(private readonly max: number) {}

  learn(icaos: Iterable<string>, resourceIds: Iterable<number>): void {
    const before = this.icaos.size + this.resourceIds.size;
    for (const icao of icaos) if (this.icaos.size < this.max) this.icaos.add(icao);
    for (const id of resourceIds) if (this.resourceIds.size < this.max) this.resourceIds.add(id);
    if (this.icaos.size + this.resourceIds.size !== before) this.current = undefined;
  }

  /** The keys as arrays (for the command) and as sets (for what was asked), made once per change. */
  keys() {
    this.current ??= { icaos: [...this.icaos], resourceIds: [...this.resourceIds], icaoSet: new Set(this.icaos), resourceIdSet: new Set(this.resourceIds) };
    return this.current;
  }
}
