import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Scope } from '../auth';
import type { GraphQLContext } from '../context';
import { Airport, AirportInput } from './airport.type';
import { listComplexity } from '../graphql/complexity';

@Resolver(() => Airport)
export class AirportResolver {
  @Authorized(Scope.TimelineRead)
  @Query(() => [Airport], { complexity: listComplexity, description: 'Airports whose ICAO, IATA, city or country starts with `search` (all when omitted).' })
  airports(@Arg('search', () => String, { nullable: true }) search: string | null, @Ctx() ctx: GraphQLContext) {
    return ctx.services.airports.search(search);
  }

  @Authorized(Scope.FlightsWrite)
  @Mutation(() => Airport, { description: 'Creates the airport, or replaces the one with the same ICAO code.' })
  upsertAirport(@Arg('input', () => AirportInput) input: AirportInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.airports.upsert(input);
  }
}
