import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';
import type { Config } from '../config';
import type { GraphQLContext } from '../context';
import { AppError, ErrorCode } from '../errors';
import type { Logger } from '../logger';
import { createErrorFormatter } from './error-format';
import { jitExecutionPlugin } from './jit-execution';

/** Rejects operations whose estimated cost exceeds the limit, before any resolver runs. */
function costLimitPlugin(schema: GraphQLSchema, maxCost: number): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document }) {
          let cost: number;
          try {
            cost = getComplexity({
              schema,
              query: document,
              variables: request.variables ?? {},
              operationName: request.operationName,
              estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
            });
          } catch (error) {
            // The estimator coerces variables first: a bad variable is the client's mistake (400).
            if (error instanceof GraphQLError) throw new AppError(ErrorCode.BAD_USER_INPUT, error.message);
            throw error;
          }
          if (cost > maxCost) {
            throw new AppError(ErrorCode.QUERY_TOO_COMPLEX, `Query cost ${cost} exceeds the limit of ${maxCost}: select fewer fields or split the query`, {
              details: [{ field: 'query', message: `estimated cost ${cost}, limit ${maxCost}`, cost, maxCost }],
            });
          }
        },
      };
    },
  };
}

/**
 * Last touches on a response: a 503 when its errors say the database is down (not a 200 with
 * errors), and the request's non-fatal remarks as `extensions.warnings`.
 */
const responseShapingPlugin: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response, contextValue }) {
        if (response.body.kind !== 'single') return;
        if (contextValue.warnings?.length) {
          response.body.singleResult.extensions = { ...response.body.singleResult.extensions, warnings: contextValue.warnings };
        }
        const errors = response.body.singleResult.errors ?? [];
        if (errors.some((error) => error.extensions?.code === ErrorCode.SERVICE_UNAVAILABLE)) {
          response.http.status = 503;
        }
      },
    };
  },
};

export function createApolloServer(schema: GraphQLSchema, config: Config, logger: Logger): ApolloServer<GraphQLContext> {
  return new ApolloServer<GraphQLContext>({
    schema,
    introspection: config.introspection,
    csrfPrevention: true,
    // main.ts owns SIGTERM/SIGINT: it drains HTTP first, then stops Apollo and the database.
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: false,
    formatError: createErrorFormatter(logger),
    validationRules: [
      maxDepthRule({
        n: config.limits.graphqlMaxDepth,
        ignoreIntrospection: true,
        exposeLimits: true,
        // Reported as a validation error (400), not thrown (which Apollo would answer with 500).
        onReject: [(context, error) => context?.reportError(error)],
        propagateOnRejection: false,
      }),
    ],
    plugins: [
      // No cache hints are used; Apollo's default cache-control plugin would wrap every field
      // resolver (measured: a third of a 5,000-entry timeline's GraphQL time).
      ApolloServerPluginCacheControlDisabled(),
      costLimitPlugin(schema, config.limits.graphqlMaxCost),
      jitExecutionPlugin(schema),
      responseShapingPlugin,
      config.nodeEnv === 'production'
        ? ApolloServerPluginLandingPageDisabled()
        : ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false }),
    ],
  });
}
