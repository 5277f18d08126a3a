import 'reflect-metadata';
// Second, before anything it traces is required (it patches them as they load).
import { announceTracing, stopTracing } from './telemetry/register';
import type { Server } from 'node:http';
import { describeDevToken, prepareDevelopmentAuth } from './auth';
import { createApp, type GatewayApp } from './app';
import { ConfigError, loadConfig, startupLogSettings, type Config } from './config';
import { openDatabase, type Database } from './models';
import { createHttpServer, prepareGracefulClose } from './http/http-server';
import { createLogger, refuseStart, type Logger } from './logger';
import { createMetricsServer } from './metrics/metrics-server';
import { Metrics } from './metrics/metrics';
import { seedDemoData } from './seed/seed';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
    // Only the service refuses: tools and benchmarks may run production settings in memory.
    if (config.nodeEnv === 'production' && !config.mongodbUri) {
      throw new ConfigError('MONGODB_URI', 'must be set in production: the embedded engine keeps data in memory only and is for development and tests');
    }
  } catch (error) {
    if (error instanceof ConfigError) refuseStart(error.message, { variable: error.variable }, startupLogSettings(process.env));
    throw error;
  }
  const logger = createLogger(config);
  announceTracing(logger);
  const prepared = await prepareDevelopmentAuth(config).catch((error: unknown) => {
    if (error instanceof ConfigError) refuseStart(error.message, { variable: error.variable }, config);
    throw error;
  });
  config = prepared.config;

  const metrics = config.metrics.enabled ? new Metrics() : undefined;
  const database = await openDatabase(config, logger, { observeClient: metrics && ((client) => metrics.observeMongoClient(client)) }).catch((error: unknown) => {
    // Without MONGODB_URI and without the development engine installed (a production-only install).
    if (error instanceof ConfigError) refuseStart(error.message, { variable: error.variable }, config);
    throw error;
  });
  if (database.kind === 'embedded') {
    logger.warn(
      { database: database.displayUri },
      'using the EMBEDDED development engine (in memory, lost at exit, not a production database); set MONGODB_URI to use a real MongoDB',
    );
  } else {
    logger.info({ database: database.displayUri }, 'using MongoDB from MONGODB_URI; the port opens once it answers');
  }
  // The port opens once the database answers: until then every data request would be a 503, while
  // a refused connection is one a proxy safely sends to another process. A real MongoDB that is
  // down keeps the process waiting (openDatabase retries and logs) instead of ending it.
  await database.ready;
  if (database.kind === 'embedded') {
    const empty = (await database.models.flights.estimatedDocumentCount()) === 0;
    if (empty) logger.info({ seeded: await seedDemoData(database.models) }, 'embedded database was empty: demo data loaded');
  } else {
    logger.info('connected to MongoDB; indexes ensured');
  }

  const gateway = await createApp({ config, logger, database, devToken: prepared.devToken, metrics });
  const metricsServer = metrics && config.metrics.port !== undefined ? createMetricsServer(metrics) : undefined;
  metricsServer?.on('error', (error) => refuseStart(`cannot listen on ${config.host}:${config.metrics.port} (METRICS_PORT): ${error.message}`, {}, config));
  metricsServer?.listen(config.metrics.port, config.host, () => logger.info({ metrics: `http://localhost:${config.metrics.port}/metrics` }, 'metrics served on METRICS_PORT'));
  const server = createHttpServer(gateway.app, config, logger);
  gateway.attachWebSockets(server);
  const close = prepareGracefulClose(server, () => logger.info('no longer accepting connections'));
  server.listen(config.port, config.host);
  server.on('error', (error) => {
    logger.fatal({ err: error }, `cannot listen on ${config.host}:${config.port}`);
    process.exit(1);
  });
  server.on('listening', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const base = `http://localhost:${port}`;
    logger.info(
      { graphql: `${base}/graphql`, subscriptions: `ws://localhost:${port}/graphql`, ...(config.introspection ? { explorer: `${base}/graphiql` } : {}), rest: `${base}/api/broker/v0`, openapi: `${base}/api/broker/v0/openapi.json`, health: `${base}/healthz` },
      `broker flight gateway listening on ${config.host}:${port}`,
    );
    if (prepared.devToken) process.stdout.write(`\n${describeDevToken(prepared.devToken, base)}\n\n`);
  });
  installShutdown(close, gateway, database, config, logger, metricsServer);
}

/**
 * SIGTERM/SIGINT: /readyz answers 503 at once; close the WebSockets (1001: their clients reconnect
 * elsewhere; an open one would hold the HTTP server's close for ever); drain HTTP (still accepting
 * for SHUTDOWN_GRACE_MS, every answer with `Connection: close`, see prepareGracefulClose); close the
 * database, exit 0. A repeated signal (npm forwards the terminal's Ctrl-C as well) changes nothing.
 */
function installShutdown(close: ReturnType<typeof prepareGracefulClose>, gateway: GatewayApp, database: Database, config: Config, logger: Logger, metricsServer?: Server): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    gateway.markStopping();
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down: not ready; finishing in-flight requests');
    const draining = close(config.shutdownGraceMs, config.shutdownTimeoutMs);
    await gateway.closeWebSockets();
    logger.debug('websockets closed');
    const { cut } = await draining;
    if (cut > 0) logger.warn({ cut, timeoutMs: config.shutdownTimeoutMs }, 'SHUTDOWN_TIMEOUT_MS ran out: requests cut');
    logger.debug('http server closed');
    await gateway.stop();
    logger.debug('graphql stopped');
    await database.close();
    metricsServer?.closeAllConnections();
    metricsServer?.close();
    await stopTracing(logger);
    logger.info('stopped');
    process.exit(0);
  };
  const stop = (signal: string) =>
    shutdown(signal).catch((error: unknown) => {
      logger.fatal({ err: error }, 'shutdown failed');
      process.exit(1);
    });
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // Every promise we make is awaited or caught; one that slips through is a bug to log, not a
  // reason to drop every client's connection (and, on the embedded engine, all data).
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection (a bug): the service keeps running'));
}

main().catch((error: unknown) => refuseStart(`start-up failed: ${error instanceof Error ? error.message : String(error)}`, {}, startupLogSettings(process.env)));
