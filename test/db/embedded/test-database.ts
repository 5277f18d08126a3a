import { MongoClient, MongoServerError, type Collection, type Db, type Document } from 'mongodb';
import { testDatabaseUri, uniqueDatabaseName } from '../../helpers/database';

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
