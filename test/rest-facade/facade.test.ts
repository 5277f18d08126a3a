import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import express from 'express';
import request from 'supertest';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { buildPassengerWorkbook, passenger } from '../helpers/passenger-workbook';
import { passengerRecord } from '../helpers/passengers';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

describe('REST facade: error model, routing and OpenAPI', () => {
  let testApp: TestApp;
  let bearer: string;
  let flightId: number;
  let openapi: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);

  /** Validates a real response against the schema the OpenAPI document gives for that route and status. */
  function expectMatchesOpenApi(path: string, method: string, status: number, body: unknown): void {
    const operation = openapi.paths[path]?.[method];
    expect(operation).toBeDefined();
    const response = operation.responses[String(status)];
    expect(response).toBeDefined();
    const schema = response.content['application/json'].schema;
    const id = `${method}${path}${status}`;
    const validate = ajv.getSchema(id) ?? ajv.compile({ ...schema, $defs: undefined, components: openapi.components, $id: id });
    const valid = validate(body);
    if (!valid) throw new Error(`${method.toUpperCase()} ${path} ${status} does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}`);
  }

  beforeAll(async () => {
    testApp = await startTestApp('facade');
    bearer = `Bearer ${await testApp.token(['timeline:read'])}`;
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-06-10T08:00:00Z', arrivalAt: '2026-06-10T09:00:00Z' });
    openapi = (await request(testApp.app).get('/api/broker/v0/openapi.json').expect(200)).body;
    // OpenAPI refs point at #/components/...; let ajv resolve them inside each compiled schema.
    ajv.addSchema({ $id: 'openapi', components: openapi.components });
  });
  afterAll(() => testApp.close());

  it('publishes an OpenAPI 3.1 document of every route, without a token', async () => {
    expect(openapi.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/calendar/timeline/event', '/resource/timeline/event', '/upload/{id}', '/flight/{flight_id}/passenger', '/resource/timeline/resources', '/upload/template.xlsx']));
    expect(openapi.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('answers its base address with the routes of the table and the address of the OpenAPI document', async () => {
    const index = await request(testApp.app).get('/api/broker/v0').expect(200);
    expectMatchesOpenApi('/', 'get', 200, index.body);
    expect(index.body.openapi).toMatch(/^http:\/\/[^/]+\/api\/broker\/v0\/openapi\.json$/);
    const listed = index.body.routes.map((route: { method: string; path: string }) => `${route.method} ${route.path}`);
    // Every path the OpenAPI document describes is listed, with each of its methods.
    const documented = Object.entries(openapi.paths)
      .filter(([path]) => path !== '/')
      .flatMap(([path, item]) => Object.keys(item as object).map((method) => `${method.toUpperCase()} /api/broker/v0${path}`));
    expect(listed.sort()).toEqual(documented.sort());
    expect(index.body.routes).toContainEqual({ method: 'GET', path: '/api/broker/v0/calendar/timeline/event', operation: expect.stringMatching(/^\w+$/), scope: 'timeline:read' });
    // Each route's scope, as the document's security names it (null: no token).
    for (const route of index.body.routes as { method: string; path: string; scope: string | null }[]) {
      const operation = openapi.paths[route.path.slice('/api/broker/v0'.length)][route.method.toLowerCase()];
      expect({ route: `${route.method} ${route.path}`, scope: route.scope }).toEqual({ route: `${route.method} ${route.path}`, scope: operation.security[0]?.bearer[0] ?? null });
    }
    expect(index.body.routes).toContainEqual(expect.objectContaining({ method: 'GET', path: '/api/broker/v0/upload/template.xlsx', scope: null }));
    expect(index.body.routes).toContainEqual(expect.objectContaining({ method: 'POST', path: '/api/broker/v0/flight/{flight_id}/passenger', scope: 'passengers:write' }));
    expect((await request(testApp.app).post('/api/broker/v0').expect(405)).headers.allow).toBe('GET, HEAD');
  });

  it('documents the ETag and the 304 of every GET route, as each answers them', async () => {
    const token = `Bearer ${await testApp.token()}`;
    const concrete = (path: string) => `/api/broker/v0${path.replace('{flight_id}', String(flightId))}${path.includes('timeline/event') ? '?start=2026-06-10&end=2026-06-10' : ''}`;
    const gets = Object.entries(openapi.paths).filter(([, item]) => 'get' in (item as object));
    expect(gets.length).toBeGreaterThanOrEqual(7);
    for (const [path, item] of gets) {
      const operation = (item as Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>).get;
      // One Host: the index and the document name the address they were asked at.
      const get = () => request(testApp.app).get(concrete(path)).set('Authorization', token).set('Host', 'broker.test');
      const first = await get().expect(200);
      expect({ path, etag: typeof first.headers.etag }).toEqual({ path, etag: 'string' });
      await get().set('If-None-Match', first.headers.etag).expect(304);
      expect({ path, documented304: '304' in operation.responses, etagHeader: 'ETag' in (operation.responses['200'].headers ?? {}) }).toEqual({ path, documented304: true, etagHeader: true });
    }
  });

  it('describes the push’s 413s, the stored e-mail and parent row, and an unknown airport as they really are', async () => {
    const writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    const tooMany = await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).send({ created: [], modified: [], deleted: Array.from({ length: 5001 }, (_, index) => index + 1) }).expect(413);
    expectMatchesOpenApi('/flight/{flight_id}/passenger', 'post', 413, tooMany.body);
    expect(tooMany.body.error.details).toEqual([{ field: 'deleted', message: 'at most 5000 items', limit: 5000 }]);
    const described413 = openapi.paths['/flight/{flight_id}/passenger'].post.responses['413'].description;
    expect(described413).toContain('JSON_MAX_BYTES');
    expect(described413).toContain('INPUT_MAX_LIST_ITEMS');

    const { StoredPassenger, Passenger } = openapi.components.schemas;
    // Only the domain is lower-cased (passenger.normalize.ts, normalizeEmail).
    for (const record of [StoredPassenger, Passenger]) expect(record.properties.email.description).toMatch(/^E-mail address, its domain lower case \(the part before the @ as written\)/);
    expect(StoredPassenger.properties.row_number_parent_id.description).toMatch(/^Always null in a stored record/);
    expect(Passenger.properties.row_number_parent_id.description).toMatch(/^The row_number of the parent row/);

    // A flight whose departure airport is not in the airports collection: iata '', city '', country ' ()'.
    await testApp.database.connection.collection('flights').insertOne({
      flightId: 900_001,
      flightNumber: 'IFL901',
      resourceId: 1,
      departure: { icao: 'ZZZZ', at: new Date('2026-06-12T08:00:00Z') },
      arrival: { icao: 'LIML', at: new Date('2026-06-12T09:00:00Z') },
    });
    const reader = `Bearer ${await testApp.token(['timeline:read'])}`;
    const entries = await request(testApp.app).get('/api/broker/v0/calendar/timeline/event?start=2026-06-12&end=2026-06-12').set('Authorization', reader).expect(200);
    expect(entries.body[0].dep).toEqual({ icao: 'ZZZZ', iata: '', country: ' ()', city: '' });
    expectMatchesOpenApi('/calendar/timeline/event', 'get', 200, entries.body);
    expect(openapi.components.schemas.Airport.properties.iata.description).toContain('empty when the airport is unknown');
  });

  it('returns responses that match the OpenAPI document, success and errors alike', async () => {
    for (const path of ['/calendar/timeline/event', '/resource/timeline/event']) {
      const ok = await request(testApp.app).get(`/api/broker/v0${path}?start=2026-06-10&end=2026-06-10`).set('Authorization', bearer).expect(200);
      expect(ok.body).toHaveLength(1);
      expectMatchesOpenApi(path, 'get', 200, ok.body);
      const bad = await request(testApp.app).get(`/api/broker/v0${path}?start=x&end=2026-06-10`).set('Authorization', bearer).expect(400);
      expectMatchesOpenApi(path, 'get', 400, bad.body);
      const anonymous = await request(testApp.app).get(`/api/broker/v0${path}?start=2026-06-10&end=2026-06-10`).expect(401);
      expectMatchesOpenApi(path, 'get', 401, anonymous.body);
    }
    const resources = await request(testApp.app).get('/api/broker/v0/resource/timeline/resources').set('Authorization', bearer).expect(200);
    expectMatchesOpenApi('/resource/timeline/resources', 'get', 200, resources.body);
  });

  it('documents the push route’s answers as they really are', async () => {
    const writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    const path = `/api/broker/v0/flight/${flightId}/passenger`;
    const post = (body: object, headers: Record<string, string> = {}) => request(testApp.app).post(path).set('Authorization', writer).set(headers).send(body);
    const applied = await post({ created: [passengerRecord(1, { phone: '+39 06 1234 5678' })], modified: [], deleted: [] }).expect(200);
    expectMatchesOpenApi('/flight/{flight_id}/passenger', 'post', 200, applied.body);
    const invalid = await post({ created: [passengerRecord(2, { date_born: 'soon' })], modified: [], deleted: [] }).expect(422);
    expectMatchesOpenApi('/flight/{flight_id}/passenger', 'post', 422, invalid.body);
    const clash = await post({ created: [passengerRecord(1, { name: 'Other' })], modified: [], deleted: [] }).expect(409);
    expectMatchesOpenApi('/flight/{flight_id}/passenger', 'post', 409, clash.body);
    const stale = await post({ created: [], modified: [], deleted: [1] }, { 'If-Match': '"7"' }).expect(412);
    expectMatchesOpenApi('/flight/{flight_id}/passenger', 'post', 412, stale.body);
    const wrongTypes = await post({ created: [passengerRecord(3, { is_carring_infant: 'no' })], modified: [], deleted: [] }).expect(400);
    expectMatchesOpenApi('/flight/{flight_id}/passenger', 'post', 400, wrongTypes.body);

    const reader = `Bearer ${await testApp.token(['passengers:read'])}`;
    const listed = await request(testApp.app).get(path).set('Authorization', reader).expect(200);
    expect(listed.body).toHaveLength(1);
    expectMatchesOpenApi('/flight/{flight_id}/passenger', 'get', 200, listed.body);
    expect(openapi.paths['/flight/{flight_id}/passenger'].get.responses['304']).toBeDefined();
    const unknown = await request(testApp.app).get('/api/broker/v0/flight/999999/passenger').set('Authorization', reader).expect(404);
    expectMatchesOpenApi('/flight/{flight_id}/passenger', 'get', 404, unknown.body);
  });

  it('documents the upload route’s answers as they really are', async () => {
    const writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    const send = (bytes: Buffer) => request(testApp.app).post(`/api/broker/v0/upload/${flightId}`).set('Authorization', writer).attach('paxlist', bytes, 'list.xlsx');
    const parsed = await send(await buildPassengerWorkbook([passenger(), passenger({ surname: 'Neri' })])).expect(200);
    expectMatchesOpenApi('/upload/{id}', 'post', 200, parsed.body);
    const invalid = await send(await buildPassengerWorkbook([passenger({ gender: 'robot' })])).expect(422);
    expectMatchesOpenApi('/upload/{id}', 'post', 422, invalid.body);
    const notXlsx = await send(Buffer.from('%PDF-1.7\n')).expect(415);
    expectMatchesOpenApi('/upload/{id}', 'post', 415, notXlsx.body);
  });

  it('leaves nothing of a request on its response once it has answered: the context, the uploaded file', async () => {
    // V8 keeps request and response objects in its old generation: what they still point at after the
    // answer survives until a full collection (src/http/request-state.ts). An outer app sees what the
    // routes put on res.locals, and what is left there when the response finishes.
    const requests: { put: string[]; left: string[] }[] = [];
    const outer = express();
    outer.use((_req, res, next) => {
      const put = new Set<string>();
      const locals: Record<string, unknown> = Object.create(null);
      res.locals = new Proxy(locals, {
        set(target, name: string, value: unknown) {
          if (value !== undefined) put.add(name);
          target[name] = value;
          return true;
        },
      });
      res.on('finish', () => requests.push({ put: [...put], left: Object.keys(locals).filter((name) => locals[name] !== undefined) }));
      next();
    });
    outer.use(testApp.app);
    await request(outer).get('/api/broker/v0/calendar/timeline/event?start=2026-06-10&end=2026-06-10').set('Authorization', bearer).expect(200);
    const writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    await request(outer).post(`/api/broker/v0/upload/${flightId}`).set('Authorization', writer).attach('paxlist', await buildPassengerWorkbook([passenger()]), 'list.xlsx').expect(200);
    await request(outer).post(`/api/broker/v0/upload/${flightId}`).set('Authorization', writer).attach('paxlist', Buffer.from('%PDF-1.7\n'), 'list.xlsx').expect(415);
    await request(outer).post('/graphql').set('Authorization', bearer).send({ query: '{ timelineEvents(view: CALENDAR, start: "2026-06-10", end: "2026-06-10") { flightId } }' }).expect(200);
    expect(requests).toEqual([
      { put: ['graphqlContext'], left: [] },
      { put: ['graphqlContext', 'paxlist'], left: [] },
      { put: ['graphqlContext', 'paxlist'], left: [] },
      { put: ['graphqlContext'], left: [] },
    ]);
  });

  it('names every operation and documents the 405 the facade answers on each path', () => {
    const operations = Object.entries(openapi.paths).flatMap(([path, item]) => Object.entries(item as Record<string, { operationId?: string; responses: Record<string, unknown> }>).map(([method, operation]) => ({ path, method, operation })));
    expect(operations.length).toBeGreaterThanOrEqual(8);
    for (const { path, method, operation } of operations) {
      expect({ path, method, operationId: typeof operation.operationId, has405: '405' in operation.responses }).toEqual({ path, method, operationId: 'string', has405: true });
    }
    expect(new Set(operations.map(({ operation }) => operation.operationId)).size).toBe(operations.length);
    expect(openapi.info.license).toMatchObject({ name: expect.any(String) });
  });

  it('answers an unknown path under the base with a JSON 404', async () => {
    const response = await request(testApp.app).get('/api/broker/v0/no/such/route').set('Authorization', bearer).expect(404);
    expect(response.body).toEqual({ error: { code: 'NOT_FOUND', message: 'No route GET /api/broker/v0/no/such/route', details: [] } });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const response = await request(testApp.app).delete('/api/broker/v0/calendar/timeline/event').set('Authorization', bearer).expect(405);
    expect(response.headers.allow).toBe('GET, HEAD');
    expect(response.body.error.code).toBe('METHOD_NOT_ALLOWED');
    const template = await request(testApp.app).post('/api/broker/v0/upload/template.xlsx').set('Authorization', bearer).expect(405);
    expect(template.headers.allow).toBe('GET, HEAD');
    const push = await request(testApp.app).put(`/api/broker/v0/flight/${flightId}/passenger?x=1`).set('Authorization', bearer).expect(405);
    expect(push.headers.allow).toBe('GET, HEAD, POST');
    // The path as requested, not the route's pattern (/flight/:flight_id/passenger).
    expect(push.body.error.message).toBe(`PUT is not allowed on /api/broker/v0/flight/${flightId}/passenger: use GET or POST`);
    expectMatchesOpenApi('/flight/{flight_id}/passenger', 'post', 405, push.body);
    const document = await request(testApp.app).post('/api/broker/v0/openapi.json').expect(405);
    expect(document.headers.allow).toBe('GET, HEAD');
  });

  it('refuses a token without timeline:read with 403 naming the scope', async () => {
    const token = await testApp.token(['passengers:read']);
    const response = await request(testApp.app).get('/api/broker/v0/calendar/timeline/event?start=2026-06-10&end=2026-06-10').set('Authorization', `Bearer ${token}`).expect(403);
    expect(response.headers['www-authenticate']).toContain('error="insufficient_scope"');
    expect(response.headers['www-authenticate']).toContain('scope="timeline:read"');
    expect(response.body.error.code).toBe('FORBIDDEN');
    expect(response.body.error.message).toContain('timeline:read');
  });

  it('rejects an invalid token with 401 invalid_token on the facade', async () => {
    const response = await request(testApp.app).get('/api/broker/v0/calendar/timeline/event?start=2026-06-10&end=2026-06-10').set('Authorization', 'Bearer not.a.token').expect(401);
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(response.body.error.code).toBe('UNAUTHENTICATED');
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After once a client exceeds RATE_LIMIT_PER_MINUTE, on REST and GraphQL alike', async () => {
    const limited = await startTestApp('rate_limit', { RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const bearer = `Bearer ${await limited.token()}`;
      const call = () => request(limited.app).get('/api/broker/v0/resource/timeline/resources').set('Authorization', bearer);
      for (let i = 0; i < 3; i += 1) await call().expect(200);
      const refused = await call().expect(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.body.error.code).toBe('TOO_MANY_REQUESTS');
      const graphql = await request(limited.app).post('/graphql').set('Authorization', bearer).send({ query: '{ resources { id } }' });
      expect(graphql.status).toBe(429);
      await request(limited.app).get('/healthz').expect(200);
    } finally {
      await limited.close();
    }
  });
});
