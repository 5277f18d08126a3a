import { createHash } from 'node:crypto';
import pino from 'pino';
import request from 'supertest';
import { startTestApp, type TestApp } from '../helpers/test-app';

/** Automatic persisted queries (Apollo's APQ protocol), as a client without a token sends them. */
describe('automatic persisted queries: a client’s mistake is a 400 that names it', () => {
  let testApp: TestApp;
  const logged: Array<{ level: number; msg?: string }> = [];

  beforeAll(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line) as { level: number; msg?: string }) });
    testApp = await startTestApp('graphql_apq', {}, { logger });
  });
  afterAll(() => testApp.close());

  const post = (body: object) => request(testApp.app).post('/graphql').set('Content-Type', 'application/json').send(body);
  const QUERY = '{ __typename }';
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  it.each([
    ['a hash that is not the query’s', { version: 1, sha256Hash: sha256('{ other }') }, 'PERSISTED_QUERY_HASH_MISMATCH', /sha256Hash is not the SHA-256 of the query/],
    ['an upper-case hash', { version: 1, sha256Hash: sha256(QUERY).toUpperCase() }, 'PERSISTED_QUERY_HASH_MISMATCH', /lowercase hex SHA-256/],
    ['a hash that is not a string', { version: 1, sha256Hash: 42 }, 'PERSISTED_QUERY_HASH_MISMATCH', /sha256Hash is not the SHA-256/],
    ['version 2', { version: 2, sha256Hash: sha256(QUERY) }, 'PERSISTED_QUERY_VERSION_UNSUPPORTED', /version must be 1/],
    ['no version', { sha256Hash: sha256(QUERY) }, 'PERSISTED_QUERY_VERSION_UNSUPPORTED', /version must be 1/],
  ])('answers %s with 400 and its own code, logging no error', async (_case, persistedQuery, code, message) => {
    const before = logged.length;
    for (const body of [{ query: QUERY, extensions: { persistedQuery } }, ...(code.endsWith('UNSUPPORTED') ? [{ extensions: { persistedQuery } }] : [])]) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([{ message: expect.stringMatching(message), extensions: { code } }]);
    }
    expect(logged.slice(before).filter((line) => line.level >= 50)).toEqual([]);
  });

  it('still registers a query under its hash and runs it by the hash alone', async () => {
    const persistedQuery = { version: 1, sha256Hash: sha256(QUERY) };
    const unknown = await post({ extensions: { persistedQuery } });
    // Apollo's protocol: the client is told to send the query with the hash (a 200, as its links expect).
    expect(unknown.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await post({ query: QUERY, extensions: { persistedQuery } })).body).toEqual({ data: { __typename: 'Query' } });
    expect((await post({ extensions: { persistedQuery } })).body).toEqual({ data: { __typename: 'Query' } });
  });
});
