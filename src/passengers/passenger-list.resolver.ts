import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Scope } from '../auth';
import type { GraphQLContext } from '../context';
import { badRequest } from '../errors';
import type { FlightData } from '../flights/flight.service';
import { Flight } from '../flights/flight.type';
import { LIST_ROWS, listComplexity } from '../graphql/complexity';
import { Passenger, PassengerList, PassengerListChangesInput, PassengerListPushResult } from './passenger.type';
import { PassengerListChange, PassengerListExportEntry } from './passenger-list-history.type';
import type { PassengerChangeSet } from './passenger-list.plan';
import type { PassengerRecord } from './passenger.record';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,200}$/;

@Resolver(() => PassengerList)
export class PassengerListResolver {
  @Authorized(Scope.PassengersRead)
  @Query(() => PassengerList, { description: 'A flight’s passenger list and its version (0 and empty when it has none).' })
  passengerList(@Arg('flightId', () => Int, { description: 'The flight whose list to read (404 when unknown).' }) flightId: number, @Ctx() ctx: GraphQLContext) {
    return ctx.services.passengerLists.get(flightId);
  }

  @Authorized(Scope.PassengersRead)
  @Query(() => [PassengerListChange], { complexity: listComplexity(LIST_ROWS.history), description: 'Applied pushes of a flight’s list, newest first.' })
  passengerListHistory(@Arg('flightId', () => Int, { description: 'The flight whose pushes to list (404 when unknown).' }) flightId: number, @Ctx() ctx: GraphQLContext) {
    return ctx.services.passengerLists.history(flightId);
  }

  @Authorized(Scope.PassengersRead)
  @Query(() => [PassengerListExportEntry], {
    complexity: listComplexity(LIST_ROWS.history),
    description: 'Files made of a flight’s list (xlsx, CSV…), newest first: who, when, which format and version. The most recent 1,000 are kept.',
  })
  passengerListExports(@Arg('flightId', () => Int, { description: 'The flight whose exports to list (404 when unknown).' }) flightId: number, @Ctx() ctx: GraphQLContext) {
    return ctx.services.passengerLists.exports(flightId);
  }

  @Authorized(Scope.PassengersWrite)
  @Mutation(() => PassengerListPushResult, {
    description: 'Applies created, modified and deleted records to a flight’s passenger list, all or nothing.',
  })
  pushPassengerList(
    @Arg('flightId', () => Int, { description: 'The flight whose list to change (404 when unknown).' }) flightId: number,
    @Arg('changes', () => PassengerListChangesInput, { description: 'The records to create, modify and delete.' }) changes: PassengerListChangesInput,
    @Arg('expectedVersion', () => Int, { nullable: true, description: 'Fail with PRECONDITION_FAILED unless the list is at this version.' }) expectedVersion: number | null,
    @Arg('idempotencyKey', () => String, { nullable: true, description: 'Retries with the same key and changes within 24 hours return the first result.' }) idempotencyKey: string | null,
    @Ctx() ctx: GraphQLContext,
  ) {
    if (idempotencyKey !== null && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw badRequest('Idempotency-Key must be 1 to 200 visible ASCII characters', [{ field: 'Idempotency-Key', message: 'expected 1 to 200 visible ASCII characters, e.g. a UUID' }]);
    }
    return ctx.services.passengerLists.push({
      flightId,
      changes: plainChanges(changes),
      expectedVersion,
      idempotencyKey,
      principal: ctx.principal!,
    });
  }
}

/** type-graphql hands over class instances; the plan (and the idempotency hash) wants plain data. */
function plainChanges(changes: PassengerListChangesInput): PassengerChangeSet {
  const plain = (record: object) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
  return { created: changes.created.map(plain), modified: changes.modified.map(plain), deleted: changes.deleted };
}

@Resolver(() => Flight)
export class FlightPassengersResolver {
  @Authorized(Scope.PassengersRead)
  @FieldResolver(() => [Passenger], { complexity: listComplexity(LIST_ROWS.passengers), description: 'The flight’s passenger list (scope passengers:read).' })
  passengers(@Root() flight: FlightData, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.passengersByFlight.load(flight.id);
  }
}

/**
 * A stored record's global id: its flight and its number in that flight's list, e.g. `42:7`.
 * Clients treat it as opaque; it never changes while the record exists.
 */
export function passengerGlobalId(record: Pick<PassengerRecord, 'idvolo' | 'id'>): string {
  return `${record.idvolo}:${record.id}`;
}

@Resolver(() => Passenger)
export class PassengerResolver {
  @FieldResolver(() => ID, {
    description: 'Identifies the record across all flights (`<flightId>:<recordId>`; treat it as opaque), so client caches keyed by __typename and id keep each flight’s passengers apart.',
  })
  id(@Root() record: PassengerRecord): string {
    return passengerGlobalId(record);
  }

  @FieldResolver(() => Int, {
    description: 'The record’s number within its flight’s list, chosen by the client that created it (the v0 interface’s `id`; what pushes name in `modified` and `deleted`).',
  })
  recordId(@Root() record: PassengerRecord): number {
    return record.id!;
  }
}
