import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { Node } from '../graphql-kit/node';

@ObjectType({ description: 'One end of a flight: where and when, as a UTC instant and as local time there.' })
export class FlightEndpoint {
  @Field({ description: 'ICAO code of the airport.' })
  icao: string;

  @Field({ description: 'The instant, in UTC.' })
  at: Date;
}

@ObjectType({ description: "A flight's own colours; null fields fall back to its resource's defaults." })
export class ColourOverrides {
  @Field(() => String, { nullable: true, description: 'Background colour (CSS), or null for the resource’s.' })
  background?: string | null;

  @Field(() => String, { nullable: true, description: 'Text colour (CSS), or null for the resource’s.' })
  text?: string | null;

  @Field(() => String, { nullable: true, description: 'Border colour (CSS), or null for the resource’s.' })
  border?: string | null;
}

@ObjectType({ description: 'A flight: one entry on the timeline.', implements: Node })
export class Flight {
  // The stored number: FlightResolver serves it as `flightId` and derives the global `id`.
  id: number;

  @Field({ description: 'Flight designator, e.g. IFL123.' })
  flightNumber: string;

  @Field(() => Int, { description: 'Id of the resource (timeline row, typically the aircraft).' })
  resourceId: number;

  @Field(() => FlightEndpoint, { description: 'Where and when the flight leaves.' })
  departure: FlightEndpoint;

  @Field(() => FlightEndpoint, { description: 'Where and when the flight lands.' })
  arrival: FlightEndpoint;

  @Field(() => ColourOverrides, { nullable: true, description: 'The flight’s own colours, without the resource’s defaults; null when it has none.' })
  colours?: ColourOverrides | null;
}

@InputType({ description: 'A new flight. Colours left out come from the resource.' })
export class CreateFlightInput {
  @Field({ description: 'Flight designator, e.g. IFL123.' })
  flightNumber: string;

  @Field(() => Int, { description: 'Id of an existing resource (timeline row).' })
  resourceId: number;

  @Field({ description: 'ICAO code of a known airport.' })
  departureIcao: string;

  @Field({ description: 'ISO 8601 date-time with offset, e.g. 2026-05-01T09:30:00+02:00.' })
  departureAt: Date;

  @Field({ description: 'ICAO code of a known airport.' })
  arrivalIcao: string;

  @Field({ description: 'After departureAt, within 24 hours.' })
  arrivalAt: Date;

  @Field(() => String, { nullable: true, description: 'CSS colour name; left out or null: the resource’s.' })
  backgroundColor?: string | null;

  @Field(() => String, { nullable: true, description: 'CSS colour name; left out or null: the resource’s.' })
  textColor?: string | null;

  @Field(() => String, { nullable: true, description: 'CSS colour name; left out or null: the resource’s.' })
  borderColor?: string | null;
}

@InputType({ description: 'Changes to a flight: absent fields stay; a null colour removes the override.' })
export class UpdateFlightInput {
  @Field({ nullable: true, description: 'New flight designator.' })
  flightNumber?: string;

  @Field(() => Int, { nullable: true, description: 'Move the flight to this resource (timeline row).' })
  resourceId?: number;

  @Field({ nullable: true, description: 'ICAO code of a known airport.' })
  departureIcao?: string;

  @Field({ nullable: true, description: 'ISO 8601 date-time with offset.' })
  departureAt?: Date;

  @Field({ nullable: true, description: 'ICAO code of a known airport.' })
  arrivalIcao?: string;

  @Field({ nullable: true, description: 'ISO 8601 date-time with offset; after departure, within 24 hours.' })
  arrivalAt?: Date;

  @Field(() => String, { nullable: true, description: 'CSS colour name; null removes the flight’s own colour.' })
  backgroundColor?: string | null;

  @Field(() => String, { nullable: true, description: 'CSS colour name; null removes the flight’s own colour.' })
  textColor?: string | null;

  @Field(() => String, { nullable: true, description: 'CSS colour name; null removes the flight’s own colour.' })
  borderColor?: string | null;
}
