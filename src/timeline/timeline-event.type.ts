import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { TimelineView } from './timeline-view';

export { TimelineView };

registerEnumType(TimelineView, {
  name: 'TimelineView',
  description: 'CALENDAR orders entries by departure then flight id; RESOURCE by resource id, then departure.',
  valuesConfig: {
    CALENDAR: { description: 'By departure, then flight id (the calendar timeline route).' },
    RESOURCE: { description: 'By resource id, then departure (the resource timeline route).' },
  },
});

/**
 * Output types whose every scalar field TimelineService builds with exactly its GraphQL type
 * (numbers for Int, strings for String), so compiled queries may skip leaf serialisation on them
 * (src/graphql/trusted-leaves.ts). Add a type here only under the same guarantee.
 */
export const EXACTLY_TYPED_OUTPUT_TYPES = ['TimelineEvent', 'TimelineAirport'] as const;

@ObjectType({ description: 'An airport as a timeline entry shows it (the legacy `dep` and `arr` objects).', simpleResolvers: true })
export class TimelineAirport {
  @Field({ description: 'Four-letter ICAO airport code.' })
  icao: string;

  @Field({ description: 'Three-letter IATA airport code (empty when the airport is unknown).' })
  iata: string;

  @Field({ description: 'Country name, a space and the parenthesised part: "Italy (IT)", or "Italy ()"; " ()" when the airport is unknown.' })
  country: string;

  @Field({ description: 'City name (empty when the airport is unknown).' })
  city: string;
}

@ObjectType({
  description: 'One flight as a timeline entry: every field of the legacy v0 entry, in GraphQL naming.',
  // Plain data, no per-field middleware: graphql-js's default resolver, thousands of entries per answer.
  simpleResolvers: true,
})
export class TimelineEvent {
  @Field(() => Int, { description: 'Id of the resource (aircraft) the flight belongs to.' })
  resourceId: number;

  @Field(() => Int, { description: 'Id of the flight.' })
  flightId: number;

  @Field({ description: 'Flight designator.' })
  flightNumber: string;

  @Field({ description: 'CSS colour name: the flight’s own, else its resource’s.' })
  backgroundColor: string;

  @Field({ description: 'CSS colour name: the flight’s own, else its resource’s.' })
  textColor: string;

  @Field({ description: 'CSS colour name: the flight’s own, else its resource’s.' })
  borderColor: string;

  @Field({ description: 'Departure, YYYY-MM-DD HH:MM wall-clock time in the response’s time zone (the timeZone argument, else the service’s TIMEZONE).' })
  start: string;

  @Field({ description: 'Arrival, YYYY-MM-DD HH:MM wall-clock time in the same time zone as start.' })
  end: string;

  @Field(() => TimelineAirport, { description: 'Departure airport.' })
  dep: TimelineAirport;

  @Field(() => TimelineAirport, { description: 'Arrival airport.' })
  arr: TimelineAirport;

  @Field({ description: 'Host name of this service instance, no scheme.' })
  url: string;

  @Field({ description: 'Version label of the interface: v0.' })
  apiVersion: string;

  @Field(() => Int, { description: 'Number of passengers in the flight’s passenger list (0 when none).' })
  passengers: number;
}
