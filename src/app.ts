import type { Server } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import express, { type Express, type Request } from 'express';
import type { GraphQLSchema } from 'graphql';
import { redactSignature } from './passengers/export/download-link';
import { createFacadeRouter, FACADE_BASE_PATH } from '../rest-facade';
import { sendError, toAppError } from '../rest-facade/errors';
import { createRequestAuthenticator, createTokenVerifier } from './auth';
import { createLiveChanges, type LiveChanges } from './changes/live-changes';
import type { Config } from './config';
import { createContextFactory, requestBaseUrl, type GraphQLContext } from './graphql-kit/context';
import type { Database } from './models';
import { AppError, ErrorCode, notFound } from './errors';
import { createApolloServer } from './graphql/apollo';
import { graphqlHttpHandler } from './graphql/http-handler';
import { createErrorFormatter } from './graphql/error-format';
import { createOperationPreparer } from './graphql/prepared-operation';
import { EXACTLY_TYPED_OUTPUT_TYPES } from './timeline/timeline-event.type';
import { graphqlMultipartRequests } from './graphql/multipart-request';
import { explorerRouter } from './graphql/explorer';
import { gatewaySchema } from './graphql/schema';
import { healthRouter } from './health/health.routes';
import { graphqlMetricsPlugin } from './metrics/graphql-metrics';
import { httpMetrics, metricsRoute } from './metrics/http-metrics';
import type { Metrics } from './metrics/metrics';
import type { Logger } from './logger';
import { createServices, type Services } from './services';
import { createSubscriptionServer } from './subscriptions/subscription-server';
import { DeliveryStatus } from './webhooks/webhook-delivery.model';
import { WebhookWorker } from './webhooks/webhook-worker';
import { crossOrigin } from './http/cors';
import { encodeResponses } from './http/response-encoding';
import { boundedJsonBody, tokenBeforeMultipart } from './http/json-body';
import { lingerAfterEarlyAnswers } from './http/lingering-close';
import { requestRateLimit } from './http/rate-limit';
import { requestLog } from './http/request-log';

export interface AppDeps {
  config: Config;
  logger: Logger;
  database: Database;
  /** The development token main.ts printed: the explorers pre-fill it for a browser on this machine. */
  devToken?: string;
  /** Prometheus metrics to record into and serve at /metrics; none: nothing recorded, no route. */
  metrics?: Metrics;
}

export interface GatewayApp {
  app: Express;
  services: Services;
  /** This process's part of the change feed (started by createApp, stopped by stop()). */
  changes: LiveChanges;
  /**
   * Serves GraphQL subscriptions (graphql-ws) on the WebSocket upgrades of `server` to /graphql.
   * Call it once the HTTP server exists (main.ts, tests that listen on a port).
   */
  attachWebSockets(server: Server): void;
  /**
   * Closes every WebSocket (1001, "going away") and refuses new ones. Call it before draining HTTP:
   * an upgraded socket keeps `server.close()` waiting for ever. stop() calls it too.
   */
  closeWebSockets(): Promise<void>;
  /** From now on /readyz answers 503: the process is stopping (main.ts, on SIGTERM, before the drain). */
  markStopping(): void;
  /** Stops Apollo Server (after the HTTP server stopped taking requests). */
  stop(): Promise<void>;
}

/** Builds the whole HTTP application without opening a port (tests call this directly). */
export async function createApp({ config, logger, database, devToken, metrics }: AppDeps): Promise<GatewayApp> {
  const changes = createLiveChanges(database.models, config.changes, logger, metrics && ((lagMs) => metrics.observeFeedLag(lagMs / 1000)));
  const services = createServices(database.connection, database.models, config, changes, {
    onUploadRead: metrics && ((outcome, seconds) => metrics.observeUpload(outcome, seconds)),
    onPdfRender: metrics && ((outcome, seconds) => metrics.observePdfRender(outcome, seconds)),
  });
  const verifier = createTokenVerifier(config.auth, {
    logger: logger.child({ component: 'auth' }),
    onKeySetFetch: metrics && ((outcome) => metrics.countJwksFetch(outcome)),
  });
  const authenticate = createRequestAuthenticator(verifier);
  if (metrics && verifier.keySetState) {
    const keySet = verifier.keySetState.bind(verifier);
    metrics.gauge('jwks_key_set_age_seconds', 'Age of the identity provider key set (JWKS_URL) tokens are verified with: since it was fetched (NaN before the first fetch)', () => {
      const { ageMs } = keySet();
      return ageMs === undefined ? Number.NaN : ageMs / 1000;
    });
    metrics.gauge('jwks_key_set_fetch_failing', '1 while the last fetch of the identity provider key set (JWKS_URL) failed: tokens that need a fetch answer 503 at once, the set held verifies the others up to JWKS_STALE_IF_ERROR_MS past its refresh; else 0', () =>
      keySet().failing ? 1 : 0,
    );
  }
  const createContext = createContextFactory({ services, config, logger, authenticate });
  const schema = await gatewaySchema();
  const apollo = createApolloServer(schema, config, logger, database.health, metrics ? [graphqlMetricsPlugin(metrics)] : []);
  await apollo.start();
  const subscriptions = createSubscriptionServer({ schema, config, logger, services, authenticate });

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  // ETags, compression and the UTF-8 encoding of bodies: encodeResponses (src/http/response-encoding.ts).
  app.set('etag', false);

  // First: every answer sent before its request's body arrived in full lingers, so the client reads it.
  app.use(lingerAfterEarlyAnswers(config.http.linger));
  if (metrics) app.use(httpMetrics(metrics));
  app.use(requestLog(logger, { redactUrl: redactSignature }));
  app.use(encodeResponses());
  const limitRequests = requestRateLimit(config.limits, authenticate);
  const allowOrigins = crossOrigin(config.corsOrigins);
  // The legacy routes first: the most frequent small requests pass no other router on their way.
  app.use(FACADE_BASE_PATH, ...allowOrigins, ...limitRequests, legacyRoutes({ config, logger, schema, database, metrics, createContext }));
  let stopping = false;
  app.use(healthRouter(database, () => stopping));
  if (metrics) app.get('/metrics', metricsRoute(metrics, authenticate));
  // GraphiQL from npm at /graphiql, for networks where Sandbox's CDN is out of reach.
  app.use(explorerRouter(config, devToken));
  app.use('/graphql', ...allowOrigins, ...limitRequests, ...graphqlRoute(config, apollo, createContext, authenticate));
  // Refusals before Apollo (rate limit, body size, bad JSON) still answer in GraphQL's shape.
  app.use('/graphql', answerInGraphqlShape);
  app.use((req, res) => sendError(res, notFound(`No route ${req.method} ${req.path}`)));
  app.use(lastErrorHandler(logger));

  await changes.start();
  const webhookWorker = startBackgroundWork({ config, logger, database, metrics, services, subscriptions });
  return {
    app,
    services,
    changes,
    attachWebSockets: (server) => subscriptions.attach(server),
    closeWebSockets: () => subscriptions.close(),
    markStopping: () => {
      stopping = true;
    },
    async stop() {
      await subscriptions.close();
      await webhookWorker.stop();
      await changes.stop();
      await apollo.stop();
    },
  };
}

/** The REST facade, its operations prepared once on the schema Apollo serves (src/graphql/prepared-operation.ts). */
function legacyRoutes(deps: Pick<AppDeps, 'config' | 'logger' | 'database' | 'metrics'> & { schema: GraphQLSchema; createContext: ReturnType<typeof createContextFactory> }): express.Router {
  const { config, metrics } = deps;
  const prepare = createOperationPreparer({
    schema: deps.schema,
    config,
    database: deps.database.health,
    formatError: createErrorFormatter(deps.logger),
    trustedTypes: new Set(EXACTLY_TYPED_OUTPUT_TYPES),
    observe: metrics && ((name, type, outcome, seconds) => metrics.observeGraphQL(name, type, outcome, seconds)),
  });
  return createFacadeRouter({ prepare, createContext: deps.createContext, config, publicBaseUrl: (req: Request) => requestBaseUrl(req, config) });
}

/** /graphql after CORS and the rate limit: the token before any multipart body, the bodies, then Apollo. */
function graphqlRoute(
  config: Config,
  apollo: ApolloServer<GraphQLContext>,
  createContext: ReturnType<typeof createContextFactory>,
  authenticate: ReturnType<typeof createRequestAuthenticator>,
): express.RequestHandler[] {
  return [
    tokenBeforeMultipart(authenticate),
    graphqlMultipartRequests(config),
    boundedJsonBody(config.limits.jsonMaxBytes, { maxBytes: config.limits.anonymousJsonMaxBytes, authenticate }),
    graphqlHttpHandler(apollo, createContext),
  ];
}

function answerInGraphqlShape(error: unknown, _req: Request, res: express.Response, next: express.NextFunction): void {
  const appError = toAppError(error);
  if (!appError) {
    next(error);
    return;
  }
  for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
  const details = appError.details.length ? { details: appError.details } : {};
  res.status(appError.status).json({ errors: [{ message: appError.message, extensions: { code: appError.code, ...details } }] });
}

/** Anything no route answered: a client's mistake in the error model, or a bug as a bare 500 (logged, never shown). */
function lastErrorHandler(logger: Logger): express.ErrorRequestHandler {
  return (error, req, res, _next) => {
    const appError = toAppError(error);
    if (appError) {
      sendError(res, appError);
      return;
    }
    (req.log ?? logger).error({ err: error }, 'unhandled error');
    sendError(res, new AppError(ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error'));
  };
}

/** Webhooks, dispatched and delivered in the background once the database is reachable, and the gauges of what runs. */
function startBackgroundWork(deps: {
  config: Config;
  logger: Logger;
  database: Database;
  metrics?: Metrics;
  services: Services;
  subscriptions: ReturnType<typeof createSubscriptionServer>;
}): WebhookWorker {
  const { config, logger, database, metrics, services, subscriptions } = deps;
  const webhookWorker = new WebhookWorker({
    ...database.models,
    config: config.webhooks,
    logger: logger.child({ component: 'webhooks' }),
    changes: services.changes,
    onAttempt: metrics && ((outcome) => metrics.countWebhookAttempt(outcome)),
  });
  if (metrics) {
    metrics.gauge('websocket_connections', 'WebSocket connections (GraphQL subscriptions) open in this process', () => subscriptions.stats().connections);
    metrics.gauge('graphql_subscriptions', 'GraphQL subscriptions running in this process', () => subscriptions.stats().subscriptions);
    metrics.gauge('timeline_large_reads_in_flight', 'Large timeline reads holding a turn (TIMELINE_LARGE_READS_MAX): reading, or their answer not yet sent', () => services.timeline.largeReads().inFlight);
    metrics.gauge('timeline_large_reads_waiting', 'Large timeline reads waiting for a turn (at most TIMELINE_LARGE_READS_QUEUE)', () => services.timeline.largeReads().waiting);
    metrics.gauge('pdf_renders_in_flight', 'PDF passenger manifests holding a turn to be rendered (at most PDF_RENDERS_MAX)', () => services.pdfRenders.stats().inFlight);
    metrics.gauge('pdf_renders_waiting', 'PDF passenger manifests waiting for a turn to be rendered (at most PDF_RENDERS_QUEUE)', () => services.pdfRenders.stats().waiting);
    metrics.gauge('webhook_deliveries_pending', 'Webhook deliveries waiting for an attempt or a retry, all processes together (read from the database at each scrape)', () =>
      database.models.webhookDeliveries.countDocuments({ status: DeliveryStatus.Pending }).exec(),
    );
  }
  services.webhooks.onChanged(() => webhookWorker.endpointsChanged());
  database.ready.then(() => webhookWorker.start(), () => undefined);
  return webhookWorker;
}
