import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { AirportResolver } from '../airports/airport.resolver';
import { FlightEndpointResolver, FlightResolver } from '../flights/flight.resolver';
import { FlightPassengersResolver, PassengerListResolver } from '../passengers/passenger-list.resolver';
import { ResourceResolver } from '../resources/resource.resolver';
import { TimelineResolver } from '../timeline/timeline.resolver';
import { scopeAuthChecker } from './auth-checker';

let cached: Promise<GraphQLSchema> | undefined;

/** The service's schema, built once per process from the type-graphql resolvers. */
export function gatewaySchema(): Promise<GraphQLSchema> {
  cached ??= buildSchema({
    resolvers: [
      AirportResolver,
      ResourceResolver,
      FlightResolver,
      FlightEndpointResolver,
      FlightPassengersResolver,
      TimelineResolver,
      PassengerListResolver,
    ],
    authChecker: scopeAuthChecker,
    authMode: 'error',
    validate: false,
  });
  return cached;
}
