import { ApolloServer, type ApolloServerPlugin, type BaseContext, type GraphQLServerContext } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import type { Config } from '../config';
import type { GraphQLContext } from '../graphql-kit/context';
import { ErrorCode, MAX_ERROR_DETAILS } from '../errors';
import type { Logger } from '../logger';
import { EXACTLY_TYPED_OUTPUT_TYPES } from '../timeline/timeline-event.type';
import { databaseGatePlugin, type DatabaseState } from './database-gate';
import { createErrorFormatter } from './error-format';
import { EXPLORER_PATH, landingPageViewer } from './explorer';
import { REQUEST_ENDING_CODES, responseSizeLimit } from './execution-limits';
import { DEFAULT_JIT_CACHE, jitExecutionPlugin } from './jit-execution';
import { blockFieldSuggestions, documentLimitRules, requestGuardsPlugin } from './request-guards';

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

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/**
 * Apollo Sandbox (loaded from Apollo's CDN) with two additions: its offline fallback links to the
 * explorer the service serves itself, and a browser on the same machine finds the development
 * token already in the Authorization header, or is told why not (decided per request by explorerRouter).
 */
function sandboxLandingPage(explorerServed: boolean): ApolloServerPlugin<GraphQLContext> {
  let server: GraphQLServerContext;
  const offline = explorerServed
    ? `<p>Apollo Sandbox cannot be loaded; it appears that you might be offline, or Apollo's CDN is blocked.</p>
  <p>Use the explorer this service serves itself, which works offline: <a id="offline-explorer" href=".${EXPLORER_PATH}">GraphiQL</a>.</p>`
    : '<p>Apollo Sandbox cannot be loaded; it appears that you might be offline, or Apollo\'s CDN is blocked.</p>';
  return {
    async serverWillStart(context) {
      server = context;
      return {
        async renderLandingPage() {
          return {
            html: async () => {
              const { authorization, notice } = landingPageViewer.getStore() ?? {};
              const sandbox = ApolloServerPluginLandingPageLocalDefault({
                embed: true,
                includeCookies: false,
                ...(authorization ? { headers: { Authorization: authorization } } : {}),
                // Said where the user looks for the token: in the operation editor.
                ...(notice ? { document: `# ${notice}\n` } : {}),
              }) as ApolloServerPlugin<BaseContext>;
              const listener = await sandbox.serverWillStart!(server);
              const page = await listener!.renderLandingPage!();
              const html = typeof page.html === 'string' ? page.html : await page.html();
              // Sandbox's empty container covers the fallback even when nothing loaded; until its
              // iframe arrives, let clicks through to the link (the page's CSP wants its nonce).
              const nonce = /<style nonce=([\w-]+)>/.exec(html)?.[1] ?? '';
              const unblock = `<style nonce=${nonce}>#embeddableSandbox:empty { pointer-events: none; }</style>`;
              const withheld = notice ? `\n  <p id="dev-token-notice">${escapeHtml(notice)}</p>` : '';
              return html.replace(/<p>Apollo Sandbox cannot be loaded[^<]*<\/p>/, () => offline + withheld + unblock);
            },
          };
        },
      };
    },
  };
}

/**
 * `observers` come first among the plugins: they see every request, including those the jit
 * execution answers without graphql-js's execution hooks.
 */
export function createApolloServer(schema: GraphQLSchema, config: Config, logger: Logger, database: DatabaseState, observers: ApolloServerPlugin<GraphQLContext>[] = []): ApolloServer<GraphQLContext> {
  const formatError = createErrorFormatter(logger);
  const responseSize = responseSizeLimit(config.limits.responseMaxBytes);
  const production = config.nodeEnv === 'production';
  return new ApolloServer<GraphQLContext>({
    schema,
    introspection: config.introspection,
    // CSRF needs credentials a browser adds on its own (cookies, cached Basic or client-certificate
    // auth); this API reads none, only a Bearer token in Authorization, which no cross-site simple
    // request can carry (the header forces a CORS preflight); a Basic header a browser adds on its
    // own is refused by the verifier (401). So a request bearing Authorization is no forgery, and urql's GET queries, Apollo Client's useGETForQueries and multipart upload
    // clients work with the token alone. Requests without it (introspection, anonymous) still need
    // a non-simple Content-Type or a preflight header: the guard holds should ambient auth ever come.
    csrfPrevention: { requestHeaders: ['authorization', 'apollo-require-preflight', 'x-apollo-operation-name'] },
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
      ...observers,
      // No cache hints are used; Apollo's default cache-control plugin would wrap every field
      // resolver (its cost: bench/README.md, the timeline's GraphQL profile).
      ApolloServerPluginCacheControlDisabled(),
      requestGuardsPlugin(schema, config),
      // After the guards: a document refused for its shape is a 400 whatever the database does.
      databaseGatePlugin(database),
      jitExecutionPlugin(schema, formatError, DEFAULT_JIT_CACHE, new Set(EXACTLY_TYPED_OUTPUT_TYPES)),
      responseShapingPlugin,
      // After the shaping, so the size measured is the size sent.
      responseSize.plugin,
      ...(production ? [blockFieldSuggestions()] : []),
      production ? ApolloServerPluginLandingPageDisabled() : sandboxLandingPage(config.introspection),
    ],
  });
}
