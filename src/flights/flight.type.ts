import { Field, InputType, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'One end of a flight: where and when, as a UTC instant and as local time there.' })
export class FlightEndpoint {
  @Field({ description: 'ICAO code of the airport.' })
  icao: string;

  @Field({ description: 'The instant, in UTC.' })
  at: Date;
}

@ObjectType({ description: "A flight's own colours; null fields fall back to its resource's defaults." })
export class ColourOverrides {
  @Field(() => String, { nullable: true })
  background?: string | null;

  @Field(() => String, { nullable: true })
  text?: string | null;

  @Field(() => String, { nullable: true })
  border?: string | null;
}

@ObjectType({ description: 'A flight: one entry on the timeline.' })
export class Flight {
  @Field(() => Int)
  id: number;

  @Field({ description: 'Flight designator, e.g. IFL123.' })
  flightNumber: string;

  @Field(() => Int)
  resourceId: number;

  @Field(() => FlightEndpoint)
  departure: FlightEndpoint;

  @Field(() => FlightEndpoint)
  arrival: FlightEndpoint;

  @Field(() => ColourOverrides, { nullable: true })
  colours?: ColourOverrides | null;
}

@InputType({ description: 'A new flight. Colours left out come from the resource.' })
export class CreateFlightInput {
  @Field()
  flightNumber: string;

  @Field(() => Int)
  resourceId: number;

  @Field({ description: 'ICAO code of a known airport.' })
  departureIcao: string;

  @Field({ description: 'ISO 8601 date-time with offset, e.g. 2026-05-01T09:30:00+02:00.' })
  departureAt: Date;

  @Field()
  arrivalIcao: string;

  @Field({ description: 'After departureAt, within 24 hours.' })
  arrivalAt: Date;

  @Field(() => String, { nullable: true })
  backgroundColor?: string | null;

  @Field(() => String, { nullable: true })
  textColor?: string | null;

  @Field(() => String, { nullable: true })
  borderColor?: string | null;
}

@InputType({ description: 'Changes to a flight: absent fields stay; a null colour removes the override.' })
export class UpdateFlightInput {
  @Field({ nullable: true })
  flightNumber?: string;

  @Field(() => Int, { nullable: true })
  resourceId?: number;

  @Field({ nullable: true })
  departureIcao?: string;

  @Field({ nullable: true })
  departureAt?: Date;

  @Field({ nullable: true })
  arrivalIcao?: string;

  @Field({ nullable: true })
  arrivalAt?: Date;

  @Field(() => String, { nullable: true })
  backgroundColor?: string | null;

  @Field(() => String, { nullable: true })
  textColor?: string | null;

  @Field(() => String, { nullable: true })
  borderColor?: string | null;
}
