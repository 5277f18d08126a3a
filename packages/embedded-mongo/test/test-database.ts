import { randomBytes } from 'node:crypto';
import { MongoClient, MongoServerError, type Collection, type Db, type Document } from 'mongodb';

/**
 * The server under test: a real MongoDB named by MONGODB_URI, or the engine that jest's global
 * setup started (this package's own, or the service's when the root suite runs these files) and
 * published through the same variable.
 */
export function testServerUri(): string {
  const uri = process.env.MONGODB_URI;
  if (!uri) throw new Error('MONGODB_URI is not set: jest global setup should have started the engine');
  return uri;
}

/** A database name of its own for one test file, so files never see each other's data. */
export function uniqueDatabaseName(prefix: string): string {
  return `test_${prefix.replace(/[^a-zA-Z0-9]/g, '_').slice(0, 30)}_${randomBytes(4).toString('hex')}`;
}

/** The server URI with the database path replaced by `dbName` (query options kept). */
export function testDatabaseUri(dbName: string): string {
  const url = new URL(testServerUri());
  url.pathname = `/${dbName}`;
  return url.toString();
}

/** A driver connection to a database of the test file's own, dropped again by `close`. */
export interface TestDatabase {
  client: MongoClient;
  db: Db;
  uri: string;
  close(): Promise<void>;
}

export async function openTestDatabase(prefix: string): Promise<TestDatabase> {
  const uri = testDatabaseUri(uniqueDatabaseName(prefix));
  const client = await MongoClient.connect(uri);
  const db = client.db();
  return {
    client,
    db,
    uri,
    close: async () => {
      await db.dropDatabase();
      await client.close();
    },
  };
}

/** True when the server under test is the embedded engine rather than a real MongoDB. */
export async function isEmbeddedEngine(db: Db): Promise<boolean> {
  const info = await db.admin().command({ buildInfo: 1 });
  return typeof info.version === 'string' && info.version.endsWith('-embedded');
}

/** A collection of `database` filled with `documents`. */
export async function seededCollection(database: TestDatabase, name: string, documents: Document[]): Promise<Collection> {
  const collection = database.db.collection(name);
  await collection.insertMany(documents);
  return collection;
}

/** The server error `promise` must fail with (the assertion fails if it succeeds or fails otherwise). */
export async function serverError(promise: Promise<unknown>): Promise<MongoServerError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(MongoServerError);
  return outcome as MongoServerError;
}

/** Resolves once `condition` holds, checking every 100 ms; fails after `timeoutMs` (a liveness bound, not a measurement). */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}
