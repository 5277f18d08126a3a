import request from 'supertest';
import { MAX_JSON_DEPTH, exceedsJsonDepth } from '../../src/shared/json-depth';
import { seedDemoData } from '../../src/seed/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { UPLOAD_BOUNDARY, graphqlUploadHeaders } from '../helpers/upload-requests';

const PUSH_URL = '/api/broker/v0/flight/1/passenger';
const nested = (depth: number, inner = '') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

/** A GraphQL multipart request whose `operations` field is `operations`, with a one-byte file. */
function multipart(operations: string): Buffer {
  const part = (name: string, value: string) => `--${UPLOAD_BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const file = `--${UPLOAD_BOUNDARY}\r\nContent-Disposition: form-data; name="0"; filename="a.xlsx"\r\nContent-Type: application/octet-stream\r\n\r\nx\r\n--${UPLOAD_BOUNDARY}--\r\n`;
  return Buffer.from(part('operations', operations) + part('map', JSON.stringify({ 0: ['variables.file'] })) + file);
}

const UPLOAD = 'mutation($file: Upload!, $extra: [Int]) { uploadPassengerList(flightId: 1, file: $file) { surname } }';

describe('nesting depth of JSON from clients', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp('json_depth');
    await seedDemoData(testApp.database.models, { today: new Date('2026-11-21T00:00:00Z'), flights: 2 });
  });
  afterAll(() => testApp.close());

  const expectTooDeep = (response: { status: number; text: string }, error: { code?: string; message: string; details?: unknown }) => {
    expect(response.status).toBe(400);
    expect(error).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining(`more than ${MAX_JSON_DEPTH} levels deep: at most ${MAX_JSON_DEPTH} are accepted`),
      details: [expect.objectContaining({ message: `at most ${MAX_JSON_DEPTH} levels of nesting`, limit: MAX_JSON_DEPTH })],
    });
    expect(response.text.length).toBeLessThan(1024);
  };

  it.each([33, 3_000, 10_000, 200_000])('refuses a push whose member nests %i arrays deep with 400 naming the limit, whatever the token', async (depth) => {
    // timeline:read alone cannot push, yet could reach the 500 through the body.
    for (const scopes of [['timeline:read'], ['passengers:write']]) {
      const body = `{"created":[{"id":1,"surname":${nested(depth)}}],"modified":[],"deleted":[]}`;
      const response = await request(testApp.app)
        .post(PUSH_URL)
        .set('Content-Type', 'application/json')
        .set('Authorization', `Bearer ${await testApp.token(scopes)}`)
        .send(body);
      expectTooDeep(response, response.body.error);
      expect(response.body.error.details[0].field).toBe('body');
    }
  });

  it('takes a body nested exactly to the limit to the usual checks', async () => {
    // The body is level 1, `created` 2, the record 3, `surname` 4: the rest makes MAX_JSON_DEPTH.
    const body = `{"created":[{"id":1,"surname":${nested(MAX_JSON_DEPTH - 3)}}],"modified":[],"deleted":[]}`;
    const response = await request(testApp.app).post(PUSH_URL).set('Content-Type', 'application/json').set('Authorization', `Bearer ${await testApp.token()}`).send(body);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain('created[0].surname: expected a string');
  });

  it.each([
    ['variables', (deep: string) => `{"query":"query($a: [Int]) { resources { id } }","variables":{"a":${deep}}}`],
    ['extensions', (deep: string) => `{"query":"{ resources { id } }","extensions":{"x":${deep}}}`],
  ])('refuses a GraphQL body nesting %s 10,000 deep with 400 naming the limit', async (_where, body) => {
    const response = await request(testApp.app)
      .post('/graphql')
      .set('Content-Type', 'application/json')
      .set('Authorization', `Bearer ${await testApp.token(['timeline:read'])}`)
      .send(body(nested(10_000)));
    expectTooDeep(response, { ...response.body.errors[0].extensions, message: response.body.errors[0].message });
  });

  it('refuses a multipart upload whose operations field nests 10,000 deep with 400 naming the limit', async () => {
    const operations = `{"query":${JSON.stringify(UPLOAD)},"variables":{"file":null,"extra":${nested(10_000, '1')}}}`;
    const response = await request(testApp.app).post('/graphql').set(graphqlUploadHeaders(await testApp.token())).send(multipart(operations));
    expectTooDeep(response, { ...response.body.errors[0].extensions, message: response.body.errors[0].message });
    expect(response.body.errors[0].extensions.details[0].field).toBe('operations');
  });

  it('answers a multipart upload whose operations hold a list of 200,000 items (it used to hang, answerless)', async () => {
    const operations = JSON.stringify({ query: UPLOAD, variables: { file: null, extra: Array.from({ length: 200_000 }, () => 0) } });
    const response = await request(testApp.app).post('/graphql').set(graphqlUploadHeaders(await testApp.token())).send(multipart(operations));
    // Apollo's validation answers first ($extra is not used), which is a client's mistake too.
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('exceedsJsonDepth', () => {
  it('walks without recursion: 100,000 levels are judged, not a stack overflow', () => {
    expect(exceedsJsonDepth(JSON.parse(nested(100_000)))).toBe(true);
    expect(exceedsJsonDepth(JSON.parse(`{"a":${nested(100_000)}}`), 100_001)).toBe(false);
  });

  it('counts arrays and objects alike, from the outermost value', () => {
    const chain = (depth: number): unknown => {
      let value: unknown = 1;
      for (let level = 0; level < depth; level += 1) value = level % 2 ? [value] : { k: value };
      return value;
    };
    expect(exceedsJsonDepth(chain(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(chain(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsJsonDepth([1, 'a', null, { b: 2 }, []], 2)).toBe(false);
    expect(exceedsJsonDepth([1, 'a', null, { b: [] }], 2)).toBe(true);
    expect(exceedsJsonDepth('text')).toBe(false);
  });
});
