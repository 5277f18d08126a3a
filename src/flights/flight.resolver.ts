import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Airport } from '../airports/airport.type';
import { Scope } from '../auth';
import type { GraphQLContext } from '../graphql-kit/context';
import { FALLBACK_COLOURS } from '../resources/resource.model';
import { Resource } from '../resources/resource.type';
import { formatLocalDateTime } from '../shared/local-time';
import { DateRangeArgs } from '../timeline/date-range.args';
import { parseDateRange } from '../timeline/date-range';
import type { FlightData } from './flight.service';
import { CreateFlightInput, Flight, FlightEndpoint, UpdateFlightInput } from './flight.type';
import { dateRangeListComplexity } from '../graphql-kit/complexity';
import { flightGlobalId } from '../shared/global-id';

type ColourKey = 'background' | 'text' | 'border';

@Resolver(() => Flight)
export class FlightResolver {
  @Authorized(Scope.TimelineRead)
  @Query(() => [Flight], { complexity: dateRangeListComplexity, description: 'Flights whose time in the air overlaps the range, by departure.' })
  flights(
    @Args(() => DateRangeArgs) { start, end }: DateRangeArgs,
    @Arg('resourceId', () => Int, { nullable: true, description: 'Only the flights of this resource (timeline row); all when omitted.' }) resourceId: number | null,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.flights.list(parseDateRange(start, end, ctx.config.timezone), resourceId);
  }

  @Authorized(Scope.TimelineRead)
  @Query(() => Flight, { nullable: true, description: 'One flight by id; null when there is none.' })
  flight(@Arg('id', () => Int, { description: 'The flight id.' }) id: number, @Ctx() ctx: GraphQLContext) {
    return ctx.services.flights.get(id);
  }

  @Authorized(Scope.FlightsWrite)
  @Mutation(() => Flight, { description: 'Creates a flight with the next free id (scope flights:write).' })
  createFlight(@Arg('input', () => CreateFlightInput, { description: 'The new flight.' }) input: CreateFlightInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.flights.create(input, actorOf(ctx));
  }

  @Authorized(Scope.FlightsWrite)
  @Mutation(() => Flight, { description: 'Changes a flight; fields left out stay as they are (scope flights:write).' })
  updateFlight(
    @Arg('id', () => Int, { description: 'The flight to change.' }) id: number,
    @Arg('input', () => UpdateFlightInput, { description: 'The fields to change.' }) input: UpdateFlightInput,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.flights.update(id, input, actorOf(ctx));
  }

  @Authorized(Scope.FlightsWrite)
  @Mutation(() => Boolean, { description: 'Deletes the flight and its passenger list.' })
  deleteFlight(@Arg('id', () => Int, { description: 'The flight to delete.' }) id: number, @Ctx() ctx: GraphQLContext) {
    return ctx.services.flights.delete(id, actorOf(ctx));
  }

  @FieldResolver(() => ID, { description: 'Unique across every type (Relay’s Global Object Identification), e.g. "Flight:42"; treat it as opaque. The number is flightId.' })
  id(@Root() flight: FlightData): string {
    return flightGlobalId(flight.id);
  }

  @FieldResolver(() => Int, { description: 'The flight number: unique among flights, never reused (the timeline’s flight_id); what flight(id:) and the mutations take.' })
  flightId(@Root() flight: FlightData): number {
    return flight.id;
  }

  @FieldResolver(() => Resource, { nullable: true, description: 'The resource (timeline row) the flight is on; null when no resource has its id.' })
  resource(@Root() flight: FlightData, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.resourceById.load(flight.resourceId);
  }

  @FieldResolver(() => String, { description: 'The flight’s own colour, else its resource’s default.' })
  backgroundColor(@Root() flight: FlightData, @Ctx() ctx: GraphQLContext) {
    return effectiveColour(flight, 'background', ctx);
  }

  @FieldResolver(() => String, { description: 'The flight’s own text colour, else its resource’s default.' })
  textColor(@Root() flight: FlightData, @Ctx() ctx: GraphQLContext) {
    return effectiveColour(flight, 'text', ctx);
  }

  @FieldResolver(() => String, { description: 'The flight’s own border colour, else its resource’s default.' })
  borderColor(@Root() flight: FlightData, @Ctx() ctx: GraphQLContext) {
    return effectiveColour(flight, 'border', ctx);
  }

  @FieldResolver(() => Int, { description: 'Number of records in the flight’s passenger list.' })
  passengerCount(@Root() flight: FlightData, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.passengerCountByFlight.load(flight.id);
  }
}

/** The token subject recorded in a change's event (the mutations demand a token, so there is one). */
function actorOf(ctx: GraphQLContext): string {
  return ctx.principal?.subject ?? 'anonymous';
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
  @FieldResolver(() => Airport, { nullable: true, description: 'The airport with this ICAO code; null if it is unknown.' })
  airport(@Root() endpoint: FlightEndpoint, @Ctx() ctx: GraphQLContext) {
    return ctx.loaders.airportByIcao.load(endpoint.icao);
  }

  @FieldResolver(() => String, { description: 'Local time at the airport, YYYY-MM-DD HH:MM.' })
  async localTime(@Root() endpoint: FlightEndpoint, @Ctx() ctx: GraphQLContext) {
    const airport = await ctx.loaders.airportByIcao.load(endpoint.icao);
    return formatLocalDateTime(endpoint.at, airport?.timezone ?? 'UTC');
  }
}
