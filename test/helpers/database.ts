import { randomBytes } from 'node:crypto';

/**
 * The MongoDB server every test file talks to: the real one named by MONGODB_URI, or the embedded
 * engine that jest's global setup started and published through the same variable.
 */
export function testServerUri(): string {
  const uri = process.env.MONGODB_URI;
  if (!uri) throw new Error('MONGODB_URI is not set: jest global setup should have started the embedded engine');
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
