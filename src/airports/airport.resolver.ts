import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Scope } from '../auth';
import type { GraphQLContext } from '../graphql-kit/context';
import { Airport, AirportInput } from './airport.type';
import { LIST_ROWS, listComplexity } from '../graphql-kit/complexity';
import { invalidInput } from '../errors';

/** Longest airport search: codes, cities and countries are far shorter; a longer term is a mistake. */
export const MAX_AIRPORT_SEARCH_LENGTH = 100;

@Resolver(() => Airport)
export class AirportResolver {
  @Authorized(Scope.TimelineRead)
  @Query(() => [Airport], { complexity: listComplexity(LIST_ROWS.airports), description: 'Airports whose ICAO, IATA, city or country starts with `search` (all when omitted).' })
  airports(@Arg('search', () => String, { nullable: true, description: 'Start of an ICAO or IATA code, city or country, any case.' }) search: string | null, @Ctx() ctx: GraphQLContext) {
    // Omitted, the argument arrives as undefined rather than null.
    if (search != null && search.length > MAX_AIRPORT_SEARCH_LENGTH) {
      throw invalidInput(`search is ${search.length} characters long: at most ${MAX_AIRPORT_SEARCH_LENGTH}`, [{ field: 'search', message: `at most ${MAX_AIRPORT_SEARCH_LENGTH} characters` }]);
    }
    return ctx.services.airports.search(search);
  }

  @Authorized(Scope.FlightsWrite)
  @Mutation(() => Airport, { description: 'Creates the airport, or replaces the one with the same ICAO code.' })
  upsertAirport(@Arg('input', () => AirportInput, { description: 'The airport; its ICAO code is its key.' }) input: AirportInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.airports.upsert(input);
  }
}
