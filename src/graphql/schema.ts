import { mergeSchemas } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { AirportResolver } from '../airports/airport.resolver';
import { FlightEndpointResolver, FlightResolver } from '../flights/flight.resolver';
import { FlightPassengersResolver, PassengerListResolver } from '../passengers/passenger-list.resolver';
import { passengerUploadResolvers, passengerUploadTypeDefs } from '../passengers/passenger-upload.schema';
import { ResourceResolver } from '../resources/resource.resolver';
import { TimelineResolver } from '../timeline/timeline.resolver';
import { scopeAuthChecker } from './auth-checker';
import { errorCodeTypeDefs } from './error-codes.schema';
import { enforceExecutionDeadline } from './execution-limits';

let cached: Promise<GraphQLSchema> | undefined;

/**
 * The service's schema, built once per process: the code-first type-graphql resolvers, merged with
 * the SDL-first file-transfer module (the Upload scalar and the upload mutation) and the error code
 * enum. Its query and list fields stop at the request's execution deadline.
 */
export function gatewaySchema(): Promise<GraphQLSchema> {
  cached ??= buildCodeFirstSchema().then((codeFirst) =>
    enforceExecutionDeadline(mergeSchemas({ schemas: [codeFirst], typeDefs: [passengerUploadTypeDefs, errorCodeTypeDefs], resolvers: passengerUploadResolvers })),
  );
  return cached;
}

function buildCodeFirstSchema(): Promise<GraphQLSchema> {
  return buildSchema({
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
}
