import { Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'One applied push of a flight’s passenger list: the new version and which records it touched (record numbers, no personal data).' })
export class PassengerListUpdate {
  @Field(() => Int, { description: 'The flight whose list changed.' })
  flightId: number;

  @Field(() => Int, { description: 'The list’s version after the push (what expectedVersion and the ETag compare with).' })
  version: number;

  @Field(() => [Int], { description: 'Records the push created (their recordId).' })
  created: number[];

  @Field(() => [Int], { description: 'Records the push modified (their recordId).' })
  modified: number[];

  @Field(() => [Int], { description: 'Records the push deleted (their recordId).' })
  deleted: number[];

  @Field(() => Int, { description: 'Passengers on the list after the push.' })
  passengerCount: number;

  @Field(() => Float, { description: 'The event’s position in the service-wide change feed (see TimelineChange.seq).' })
  seq: number;

  @Field({ description: 'When the push was committed.' })
  at: Date;
}
