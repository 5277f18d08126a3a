import type { Express } from 'express';
import { print, type ExecutionResult } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import request from 'supertest';
import { createApp, type GatewayApp } from '../../src/app';
import { ALL_SCOPES, mintToken } from '../../src/auth';
import { loadConfig, type Config } from '../../src/config';
import { openDatabase, type Database } from '../../src/models';
import { createLogger, type Logger } from '../../src/logger';
import type { Metrics } from '../../src/metrics/metrics';
import { testDatabaseUri, uniqueDatabaseName } from './database';

export const TEST_SECRET = 'test-secret-that-is-at-least-32-bytes-long!';

export interface TestApp {
  app: Express;
  /** What createApp returned: services (the change feed among them) and the process's live changes. */
  gateway: GatewayApp;
  config: Config;
  database: Database;
  /** A bearer token for `subject` with the given scopes (all by default). */
  token(scopes?: readonly string[], subject?: string): Promise<string>;
  /** Runs a typed GraphQL document over HTTP with a token holding every scope. */
  graphql<Data, Variables>(document: TypedDocumentNode<Data, Variables>, variables?: Variables, token?: string): Promise<{ status: number; body: ExecutionResult<Data> }>;
  close(): Promise<void>;
}

/** `dbName` on the given server, or else on the suite's server. */
function databaseUri(dbName: string, serverUri: string | undefined): string {
  if (!serverUri) return testDatabaseUri(dbName);
  const url = new URL(serverUri);
  url.pathname = `/${dbName}`;
  return url.toString();
}

/** The real application on a database of its own (dropped by close), as `npm start` builds it. */
export async function startTestApp(
  name: string,
  env: Record<string, string> = {},
  /** `serverUri`: a mongodb:// server URI to use instead of the suite's (MONGODB_URI); the database name is added. */
  /**
   * `dbName`: share this database with other apps (several service processes on one database);
   * only the app that created it (the first) drops it on close.
   */
  /** `metrics`: record into these Prometheus metrics (driver events included) and serve them at /metrics. */
  /** `logger`: where the app logs (a test that reads the log); a silent one by default. */
  options: { monitorCommands?: boolean; devToken?: string; serverUri?: string; dbName?: string; metrics?: Metrics; logger?: Logger } = {},
): Promise<TestApp> {
  const config = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: TEST_SECRET,
    PUBLIC_HOST: 'broker.test',
    TIMEZONE: 'Europe/Rome',
    // Test files fire hundreds of requests from one address; the limit itself has its own test.
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'silent',
    // A loaded machine (the whole suite beside other work) is slow, not broken: the limits that turn
    // a slow database into a 503 and a slow query or spreadsheet into a refusal guard production, and
    // a test about one of them sets its own. With the defaults, concurrency tests on a busy machine
    // failed with 503s and QUERY_TIMEOUTs.
    DB_OPERATION_TIMEOUT_MS: '120000',
    DB_SERVER_SELECTION_TIMEOUT_MS: '60000',
    READINESS_TIMEOUT_MS: '60000',
    GRAPHQL_TIMEOUT_MS: '120000',
    UPLOAD_MAX_PARSE_MS: '120000',
    ...env,
  });
  const logger = options.logger ?? createLogger(config);
  const dbName = options.dbName ?? uniqueDatabaseName(name);
  const { metrics } = options;
  const database = await openDatabase(config, logger, {
    uri: databaseUri(dbName, options.serverUri),
    monitorCommands: options.monitorCommands,
    observeClient: metrics && ((client) => metrics.observeMongoClient(client)),
  });
  await database.ready;
  const gateway = await createApp({ config, logger, database, devToken: options.devToken, metrics }).catch(async (error: unknown) => {
    if (!options.dbName) await database.connection.dropDatabase();
    await database.close();
    throw error;
  });
  const token = (scopes: readonly string[] = ALL_SCOPES, subject = 'tester') =>
    mintToken(config.auth, { sub: subject, scope: [...scopes], ttlSeconds: 3600 });
  // Minted on first use: an app configured with JWKS_URL alone has no key to mint with.
  let fullToken: Promise<string> | undefined;
  return {
    app: gateway.app,
    gateway,
    config,
    database,
    token,
    async graphql(document, variables, bearer) {
      bearer ??= await (fullToken ??= token());
      const response = await request(gateway.app)
        .post('/graphql')
        .set('Authorization', `Bearer ${bearer}`)
        .send({ query: print(document), variables });
      return { status: response.status, body: response.body };
    },
    async close() {
      await gateway.stop();
      if (!options.dbName) await database.connection.dropDatabase();
      await database.close();
    },
  };
}
