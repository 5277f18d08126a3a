import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum TimelineView {
  CALENDAR = 'CALENDAR',
  RESOURCE = 'RESOURCE',
}

registerEnumType(TimelineView, {
  name: 'TimelineView',
  description: 'CALENDAR orders entries by departure then flight id; RESOURCE by resource id, then departure.',
});

@ObjectType({ description: 'An airport as a timeline entry shows it (the legacy `dep` and `arr` objects).', simpleResolvers: true })
export class TimelineAirport {
  @Field()
  icao: string;

  @Field()
  iata: string;

  @Field({ description: 'Country name, a space and the parenthesised part: "Italy (IT)", or "Italy ()".' })
  country: string;

  @Field()
  city: string;
}

@ObjectType({
  description: 'One flight as a timeline entry: every field of the legacy v0 entry, in GraphQL naming.',
  // Plain data, no per-field middleware: graphql-js's default resolver, thousands of entries per answer.
  simpleResolvers: true,
})
export class TimelineEvent {
  @Field(() => Int)
  resourceId: number;

  @Field(() => Int)
  flightId: number;

  @Field()
  flightNumber: string;

  @Field()
  backgroundColor: string;

  @Field()
  textColor: string;

  @Field()
  borderColor: string;

  @Field({ description: 'Departure local time at the departure airport, YYYY-MM-DD HH:MM.' })
  start: string;

  @Field({ description: 'Arrival local time at the arrival airport, YYYY-MM-DD HH:MM.' })
  end: string;

  @Field(() => TimelineAirport)
  dep: TimelineAirport;

  @Field(() => TimelineAirport)
  arr: TimelineAirport;

  @Field({ description: 'Host name of this service instance, no scheme.' })
  url: string;

  @Field({ description: 'Version label of the interface: v0.' })
  apiVersion: string;

  @Field(() => Int, { description: 'Number of passengers in the flight’s passenger list (0 when none).' })
  passengers: number;
}
