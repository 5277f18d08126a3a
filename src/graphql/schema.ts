import { mergeSchemas } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { AirportResolver } from '../airports/airport.resolver';
import { FlightEndpointResolver, FlightResolver } from '../flights/flight.resolver';
import { FlightPassengersResolver, PassengerListResolver, PassengerResolver } from '../passengers/passenger-list.resolver';
import { passengerUploadResolvers, passengerUploadTypeDefs } from '../passengers/passenger-upload.schema';
import { PassengerPreview } from '../passengers/passenger.type';
import { ResourceResolver } from '../resources/resource.resolver';
import { PassengerListChangesResolver } from '../subscriptions/passenger-list-changes.resolver';
import { feedOnlyPubSub } from '../subscriptions/subscription-context';
import { TimelineChangesResolver } from '../subscriptions/timeline-changes.resolver';
import { TimelineResolver } from '../timeline/timeline.resolver';
import { WebhookResolver } from '../webhooks/webhook.resolver';
import { scopeAuthChecker } from './auth-checker';
import { errorCodeTypeDefs } from './error-codes.schema';
import { NodeResolver, withSyncNodeResolveType } from '../graphql-kit/node';
import { enforceExecutionDeadline } from './execution-limits';

/** type-graphql gives the root types no description; Sandbox and GraphiQL show these. */
const rootTypeDefs = /* GraphQL */ `
  "Reads: flights, the timeline, resources, airports and passenger lists. Every field but passengerTemplateUrl needs a bearer token."
  type Query
  "Writes: flights, airports, resources, passenger lists and webhook endpoints (scopes flights:write, passengers:write, webhooks:manage)."
  type Mutation
  "Live changes, over WebSocket (graphql-ws, token in connection_init's payload) on /graphql: timelineChanged (timeline:read), passengerListChanged (passengers:read)."
  type Subscription
`;

let cached: Promise<GraphQLSchema> | undefined;

/**
 * The service's schema, built once per process: the code-first type-graphql resolvers, merged with
 * the SDL-first file-transfer module (the Upload scalar and the upload mutation) and the error code
 * enum. Its query and list fields stop at the request's execution deadline.
 */
export function gatewaySchema(): Promise<GraphQLSchema> {
  cached ??= buildCodeFirstSchema().then((codeFirst) =>
    withSyncNodeResolveType(
      enforceExecutionDeadline(mergeSchemas({ schemas: [codeFirst], typeDefs: [rootTypeDefs, passengerUploadTypeDefs, errorCodeTypeDefs], resolvers: passengerUploadResolvers })),
    ),
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
      PassengerResolver,
      NodeResolver,
      TimelineChangesResolver,
      PassengerListChangesResolver,
      WebhookResolver,
    ],
    // Returned only by the SDL-first upload mutation, which type-graphql does not see.
    orphanedTypes: [PassengerPreview],
    pubSub: feedOnlyPubSub,
    authChecker: scopeAuthChecker,
    authMode: 'error',
    validate: false,
  });
}
