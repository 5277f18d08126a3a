import { Arg, Args, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Airport } from '../airports/airport.type';
import { Scope } from '../auth';
import type { GraphQLContext } from '../context';
import { FALLBACK_COLOURS } from '../resources/resource.model';
import { Resource } from '../resources/resource.type';
import { formatLocalDateTime } from '../shared/local-time';
import { DateRangeArgs } from '../timeline/date-range.args';
import { parseDateRange } from '../timeline/date-range';
import type { FlightData } from './flight.service';
import { CreateFlightInput, Flight, FlightEndpoint, UpdateFlightInput } from './flight.type';
import { dateRangeListComplexity } from '../graphql/complexity';

type ColourKey = 'background' | 'text' | 'border';

@Resolver(() => Flight)
export class FlightResolver {
  @Authorized(Scope.TimelineRead)
  @Query(() => [Flight], { complexity: dateRangeListComplexity, description: 'Flights whose time in the air overlaps the range, by departure.' })
  flights(
    @Args(() => DateRangeArgs) { start, end }: DateRangeArgs,
    @Arg('resourceId', () => Int, { nullable: true }) resourceId: number | null,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.flights.list(parseDateRange(start, end, ctx.config.timezone), resourceId);
  }

  @Authorized(Scope.TimelineRead)
  @Query(() => Flight, { nullable: true })
  flight(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext) {
    return ctx.services.flights.get(id);
  }

  @Authorized(Scope.FlightsWrite)
  @Mutation(() => Flight)
  createFlight(@Arg('input', () => CreateFlightInput) input: CreateFlightInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.flights.create(input);
  }

  @Authorized(Scope.FlightsWrite)
  @Mutation(() => Flight)
  updateFlight(
    @Arg('id', () => Int) id: number,
    @Arg('input', () => UpdateFlightInput) input: UpdateFlightInput,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.flights.update(id, input);
  }

  @Authorized(Scope.FlightsWrite)
  @Mutation(() => Boolean, { description: 'Deletes the flight and its passenger list.' })
  deleteFlight(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext) {
    return ctx.services.flights.delete(id);
  }

  @FieldResolver(() => Resource, { nullable: true })
  resource(@Root() flight: FlightData, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.resourceById.load(flight.resourceId);
  }

  @FieldResolver(() => String, { description: 'The flight’s own colour, else its resource’s default.' })
  backgroundColor(@Root() flight: FlightData, @Ctx() ctx: GraphQLContext) {
    return effectiveColour(flight, 'background', ctx);
  }

  @FieldResolver(() => String)
  textColor(@Root() flight: FlightData, @Ctx() ctx: GraphQLContext) {
    return effectiveColour(flight, 'text', ctx);
  }

  @FieldResolver(() => String)
  borderColor(@Root() flight: FlightData, @Ctx() ctx: GraphQLContext) {
    return effectiveColour(flight, 'border', ctx);
  }

  @FieldResolver(() => Int, { description: 'Number of records in the flight’s passenger list.' })
  passengerCount(@Root() flight: FlightData, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.passengerCountByFlight.load(flight.id);
  }
}

async function effectiveColour(flight: FlightData, key: ColourKey, ctx: GraphQLContext): Promise<string> {
  const own = flight.colours?.[key];
  if (own) return own;
  const resource = await ctx.loaders.resourceById.load(flight.resourceId);
  if (!resource) return FALLBACK_COLOURS[key];
  return { background: resource.backgroundColor, text: resource.textColor, border: resource.borderColor }[key];
}

@Resolver(() => FlightEndpoint)
export class FlightEndpointResolver {
  @FieldResolver(() => Airport, { nullable: true })
  airport(@Root() endpoint: FlightEndpoint, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.airportByIcao.load(endpoint.icao);
  }

  @FieldResolver(() => String, { description: 'Local time at the airport, YYYY-MM-DD HH:MM.' })
  async localTime(@Root() endpoint: FlightEndpoint, @Ctx() ctx: GraphQLContext) {
    const airport = await ctx.loaders.airportByIcao.load(endpoint.icao);
    return formatLocalDateTime(endpoint.at, airport?.timezone ?? 'UTC');
  }
}
