import { Arg, Authorized, Int, Resolver, Root, Subscription } from 'type-graphql';
import { Scope } from '../auth';
import { ChangeEventType, type ChangeEvent } from '../changes/change-event';
import type { GraphQLContext } from '../graphql-kit/context';
import { END_OF_STREAM } from './change-stream';
import { PassengerListUpdate } from './passenger-list-update.type';
import { changeStreamFor } from './subscription-context';

/**
 * Listens before the flight is checked, so that no push between the check and the first event is
 * missed; an unknown flight is a 404, as passengerList answers. The stream ends with the flight.
 */
async function passengerListUpdates(flightId: number, context: GraphQLContext) {
  const stream = changeStreamFor(context, (event) => (event.flightId !== flightId ? undefined : selectUpdate(event)));
  try {
    await context.services.flights.require(flightId);
  } catch (error) {
    await stream.return();
    throw error;
  }
  return stream;
}

function selectUpdate(event: ChangeEvent): PassengerListUpdate | undefined | typeof END_OF_STREAM {
  if (event.type === ChangeEventType.FlightDeleted) return END_OF_STREAM;
  if (event.type !== ChangeEventType.PassengerListUpdated || !event.passengerList) return undefined;
  const { version, created, modified, deleted, count } = event.passengerList;
  return { flightId: event.flightId, version, created, modified, deleted, passengerCount: count, seq: event.seq, at: event.at };
}

@Resolver(() => PassengerListUpdate)
export class PassengerListChangesResolver {
  @Authorized(Scope.PassengersRead)
  @Subscription(() => PassengerListUpdate, {
    subscribe: ({ args, context }) => passengerListUpdates((args as { flightId: number }).flightId, context as GraphQLContext),
    description:
      'Every applied push of a flight’s passenger list, from the moment of subscribing, over WebSocket (graphql-ws) on /graphql; completes when the flight is deleted. Needs scope passengers:read.',
  })
  passengerListChanged(
    @Root() update: PassengerListUpdate,
    @Arg('flightId', () => Int, { description: 'The flight whose list to watch (404 when unknown).' }) _flightId: number,
  ): PassengerListUpdate {
    return update;
  }
}
