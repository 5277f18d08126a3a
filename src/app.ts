import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type Express, type Request } from 'express';
import { graphqlUploadExpress } from 'graphql-upload-minimal';
import { pinoHttp } from 'pino-http';
import { createFacadeRouter, FACADE_BASE_PATH } from '../rest-facade';
import { sendError, toAppError } from '../rest-facade/errors';
import { createTokenVerifier } from './auth';
import type { Config } from './config';
import { createContextFactory, requestBaseUrl } from './context';
import type { Database } from './db/database';
import { AppError, ErrorCode, badRequest, notFound } from './errors';
import { createApolloServer } from './graphql/apollo';
import { gatewaySchema } from './graphql/schema';
import { healthRouter } from './health/health.routes';
import type { Logger } from './logger';
import { createServices } from './services';
import { crossOrigin } from './shared/cors';
import { requestRateLimit } from './shared/rate-limit';

export interface AppDeps {
  config: Config;
  logger: Logger;
  database: Database;
}

export interface GatewayApp {
  app: Express;
  /** Stops Apollo Server (after the HTTP server stopped taking requests). */
  stop(): Promise<void>;
}

const REQUEST_ID = /^[\w.:-]{1,100}$/;

/** Builds the whole HTTP application without opening a port (tests call this directly). */
export async function createApp({ config, logger, database }: AppDeps): Promise<GatewayApp> {
  const services = createServices(database.connection, database.models, config);
  const verifier = createTokenVerifier(config.auth);
  const createContext = createContextFactory({ services, config, logger, verifier });
  const apollo = createApolloServer(await gatewaySchema(), config, logger);
  await apollo.start();

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  app.set('query parser', 'simple');

  app.use(
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
    }),
  );

  app.use(healthRouter(database));
  const limitRequests = requestRateLimit(config.limits);
  const allowOrigins = crossOrigin(config.corsOrigins);

  app.use(
    '/graphql',
    allowOrigins,
    limitRequests,
    graphqlUploads(config),
    express.json({ limit: config.limits.jsonMaxBytes }),
    expressMiddleware(apollo, { context: async ({ req }) => createContext(req) }),
  );

  const publicBaseUrl = (req: Request) => requestBaseUrl(req, config);
  app.use(FACADE_BASE_PATH, allowOrigins, limitRequests, createFacadeRouter({ apollo, createContext, config, publicBaseUrl }));

  app.use((req, res) => sendError(res, notFound(`No route ${req.method} ${req.path}`)));
  app.use((error: unknown, req: Request, res: express.Response, _next: express.NextFunction) => {
    const appError = toAppError(error);
    if (appError) {
      sendError(res, appError);
      return;
    }
    req.log.error({ err: error }, 'unhandled error');
    sendError(res, new AppError(ErrorCode.INTERNAL_SERVER_ERROR, 'Internal server error'));
  });

  return { app, stop: () => apollo.stop() };
}

/**
 * GraphQL multipart requests (file uploads); other requests pass untouched. Apollo's CSRF prevention
 * still demands a preflight header. A body busboy cannot read is the client's mistake: 400.
 */
function graphqlUploads(config: Config): express.RequestHandler {
  const upload = graphqlUploadExpress({ maxFileSize: config.limits.uploadMaxBytes, maxFiles: 1, maxFieldSize: config.limits.jsonMaxBytes });
  return (req, res, next) =>
    upload(req, res, (error?: unknown) => {
      if (error && !toAppError(error)) next(badRequest(`The multipart GraphQL request cannot be read: ${(error as Error).message}`));
      else next(error);
    });
}

/** Resolves once `server` stopped accepting and every in-flight request finished (or the timeout hit). */
export function closeServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, timeoutMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
