import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import type { Config } from '../config';
import type { GraphQLContext } from '../context';
import { ErrorCode, MAX_ERROR_DETAILS } from '../errors';
import type { Logger } from '../logger';
import { createErrorFormatter } from './error-format';
import { responseSizeLimit } from './execution-limits';
import { jitExecutionPlugin } from './jit-execution';
import { blockFieldSuggestions, documentLimitRules, requestGuardsPlugin } from './request-guards';

/** Errors that end a request as a whole: the answer is that one error, without partial data. */
const REQUEST_ENDING_CODES = new Set<unknown>([ErrorCode.QUERY_TIMEOUT, ErrorCode.RESPONSE_TOO_LARGE]);

/**
 * Last touches on a response: a 503 when its errors say the database is down (not a 200 with
 * errors), and the request's non-fatal remarks as `extensions.warnings`.
 */
const responseShapingPlugin: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response, contextValue }) {
        if (response.body.kind !== 'single') return;
        const result = response.body.singleResult;
        if (contextValue.warnings?.length) {
          result.extensions = { ...result.extensions, warnings: contextValue.warnings };
        }
        const errors = result.errors ?? [];
        if (errors.some((error) => error.extensions?.code === ErrorCode.SERVICE_UNAVAILABLE)) {
          response.http.status = 503;
        }
        const ending = errors.find((error) => REQUEST_ENDING_CODES.has(error.extensions?.code));
        if (ending) {
          response.body.singleResult = { errors: [ending] };
        } else if (errors.length > MAX_ERROR_DETAILS) {
          result.errors = capErrors(errors);
        }
      },
    };
  },
};

/** The first errors and one more counting the rest: a list of 5,000 failing rows is not 5,000 errors. */
function capErrors(errors: readonly GraphQLFormattedError[]): GraphQLFormattedError[] {
  const omitted = errors.length - MAX_ERROR_DETAILS;
  return [
    ...errors.slice(0, MAX_ERROR_DETAILS),
    { message: `${omitted} more errors not listed (only the first ${MAX_ERROR_DETAILS} are)`, extensions: { code: errors[0].extensions?.code ?? ErrorCode.INTERNAL_SERVER_ERROR, omitted } },
  ];
}

export function createApolloServer(schema: GraphQLSchema, config: Config, logger: Logger): ApolloServer<GraphQLContext> {
  const formatError = createErrorFormatter(logger);
  const responseSize = responseSizeLimit(config.limits.responseMaxBytes);
  const production = config.nodeEnv === 'production';
  return new ApolloServer<GraphQLContext>({
    schema,
    introspection: config.introspection,
    csrfPrevention: true,
    // main.ts owns SIGTERM/SIGINT: it drains HTTP first, then stops Apollo and the database.
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: false,
    formatError,
    // The parser stops at this many tokens (a 400), before any other work on a huge document.
    parseOptions: { maxTokens: config.limits.graphqlMaxTokens },
    validationRules: documentLimitRules(config.limits),
    // graphql-js stops validating after this many errors (its default is 100).
    validationOptions: { maxErrors: 20 },
    stringifyResult: responseSize.stringifyResult,
    plugins: [
      // No cache hints are used; Apollo's default cache-control plugin would wrap every field
      // resolver (measured: a third of a 5,000-entry timeline's GraphQL time).
      ApolloServerPluginCacheControlDisabled(),
      requestGuardsPlugin(schema, config),
      jitExecutionPlugin(schema, formatError),
      responseShapingPlugin,
      // After the shaping, so the size measured is the size sent.
      responseSize.plugin,
      ...(production ? [blockFieldSuggestions()] : []),
      production
        ? ApolloServerPluginLandingPageDisabled()
        : ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false }),
    ],
  });
}
