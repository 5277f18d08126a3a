import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum TimelineChangeKind {
  ENTERED = 'ENTERED',
  CHANGED = 'CHANGED',
  LEFT = 'LEFT',
}

registerEnumType(TimelineChangeKind, {
  name: 'TimelineChangeKind',
  description: 'What happened to an entry of the watched range.',
  valuesConfig: {
    ENTERED: { description: 'The flight now shows in the range: created there, or moved into it (other times, or onto the watched resource).' },
    CHANGED: { description: 'The flight shows in the range before and after: moved within it, edited, or its passenger list changed.' },
    LEFT: { description: 'The flight no longer shows in the range: moved out of it, or deleted.' },
  },
});

@ObjectType({ description: 'One change of the watched timeline range: thin on purpose; refetch the range, or select `flight`, for the entry itself.' })
export class TimelineChange {
  @Field(() => TimelineChangeKind, { description: 'ENTERED, CHANGED or LEFT.' })
  change: TimelineChangeKind;

  @Field({ description: 'The change event behind it: flight.created, flight.updated, flight.deleted or passenger_list.updated (the names webhooks use).' })
  eventType: string;

  @Field(() => Int, { description: 'The flight concerned (what flight(id:) and the mutations take).' })
  flightId: number;

  @Field(() => ID, { description: 'The flight’s global id (Flight.id, for node(id:) and client caches); treat it as opaque.' })
  flightGlobalId: string;

  @Field(() => Float, { description: 'The event’s position in the service-wide change feed: a whole number, increasing with every change of any flight (Float: it may outgrow GraphQL’s 32-bit Int).' })
  seq: number;

  @Field({ description: 'When the change was committed.' })
  at: Date;
}
