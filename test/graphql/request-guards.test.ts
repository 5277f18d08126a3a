import request from 'supertest';
import express from 'express';
import { seedDemoData } from '../../src/seed/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';

/*
 * Issue 9: every bound on a GraphQL request's work holds before the work is spent, and every
 * client mistake is a 4xx with the error model and a small answer.
 */

const PUSH = 'mutation($c: PassengerListChangesInput!){ pushPassengerList(flightId: 1, changes: $c){ version } }';
const YEAR = 'start: "2026-06-01", end: "2027-06-01"';

const aliases = (count: number, field: string) => `{ ${Array.from({ length: count }, (_, index) => `a${index}: ${field}`).join(' ')} }`;

function fragmentChain(length: number): string {
  const fragments = Array.from({ length }, (_, index) => `fragment F${index} on Query { ${index + 1 < length ? `...F${index + 1}` : '__typename'} }`);
  return `query { ...F0 } ${fragments.join(' ')}`;
}

const post = (testApp: TestApp, body: object, token?: string) => {
  const call = request(testApp.app).post('/graphql').set('Content-Type', 'application/json');
  if (token) call.set('Authorization', `Bearer ${token}`);
  return call.send(body);
};

/** A refusal with the error model, its code, and an answer that stays small whatever was sent. */
function expectRefused(response: request.Response, status: number, code: string, maxBytes = 4096): { message: string; extensions: Record<string, unknown> } {
  expect(response.status).toBe(status);
  expect(response.body.errors?.[0]?.extensions?.code).toBe(code);
  expect(response.body.data ?? null).toBeNull();
  expect(response.text.length).toBeLessThan(maxBytes);
  expect(response.text).not.toMatch(/stacktrace|\.ts:\d+|\.js:\d+/);
  return response.body.errors[0];
}

describe('GraphQL request guards', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp('graphql_request_guards');
    await seedDemoData(testApp.database.models, { today: new Date('2026-11-21T00:00:00Z'), flights: 40 });
  });
  afterAll(() => testApp.close());

  describe('variables are bounded before they are read', () => {
    it('refuses an anonymous push of 240,000 deleted strings with 401, before looking at them', async () => {
      const deleted = Array.from({ length: 240_000 }, () => 'x');
      const response = await post(testApp, { query: PUSH, variables: { c: { created: [], modified: [], deleted } } });
      expectRefused(response, 401, 'UNAUTHENTICATED', 1024);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="broker"');
    });

    it('refuses a list longer than INPUT_MAX_LIST_ITEMS with 413 naming the variable and the limit', async () => {
      const deleted = Array.from({ length: 5_001 }, (_, index) => index + 1);
      const response = await post(testApp, { query: PUSH, variables: { c: { created: [], modified: [], deleted } } }, await testApp.token());
      const error = expectRefused(response, 413, 'PAYLOAD_TOO_LARGE');
      expect(error.message).toContain('$c.deleted holds 5001 items; at most 5000');
    });

    it('refuses a string longer than INPUT_MAX_STRING_LENGTH with 413', async () => {
      const response = await post(testApp, { query: 'query($s: String){ airports(search: $s){ icao } }', variables: { s: 'a'.repeat(10_001) } }, await testApp.token());
      const error = expectRefused(response, 413, 'PAYLOAD_TOO_LARGE');
      expect(error.message).toContain('$s is a string of 10001 characters');
    });

    it('stops coercing variables after the first errors: 4,000 bad ids answer a few kB, not one error each', async () => {
      const deleted = Array.from({ length: 4_000 }, () => 'x');
      const response = await post(testApp, { query: PUSH, variables: { c: { created: [], modified: [], deleted } } }, await testApp.token());
      const error = expectRefused(response, 400, 'BAD_USER_INPUT', 16_384);
      expect(error.message).toMatch(/\$c.*deleted\[0\]/);
      expect((error.extensions.details as unknown[]).length).toBeLessThanOrEqual(21);
    });
  });

  describe('cost, aliases, tokens and the answer are bounded', () => {
    it('refuses 980 aliases of a 366-day timeline before running them (max tokens)', async () => {
      const response = await post(testApp, { query: aliases(980, `timelineEvents(view: CALENDAR, ${YEAR}) { flightId }`) }, await testApp.token(['timeline:read']));
      expectRefused(response, 400, 'GRAPHQL_PARSE_FAILED');
    });

    it('refuses more aliases than GRAPHQL_MAX_ALIASES before running them', async () => {
      const response = await post(testApp, { query: aliases(21, 'timelineEvents(view: CALENDAR, start: "2026-06-01", end: "2026-06-02") { flightId }') }, await testApp.token(['timeline:read']));
      const error = expectRefused(response, 400, 'GRAPHQL_VALIDATION_FAILED');
      expect(error.message).toMatch(/aliases limit of 20/i);
    });

    it('refuses documents of 9,000 __typename aliases at parse time (max tokens), and anonymous ones before reading them', async () => {
      const response = await post(testApp, { query: aliases(9_000, '__typename') }, await testApp.token(['timeline:read']));
      const error = expectRefused(response, 400, 'GRAPHQL_PARSE_FAILED');
      expect(error.message).toMatch(/more tha[nt] 2000 tokens/);
      const anonymous = expectRefused(await post(testApp, { query: aliases(9_000, '__typename') }), 401, 'UNAUTHENTICATED');
      expect(anonymous.message).toMatch(/without a valid token may carry at most \d+ bytes/);
    });

    it('answers a legitimate 366-day timeline over REST', async () => {
      const response = await request(testApp.app)
        .get('/api/broker/v0/calendar/timeline/event?start=2026-06-01&end=2027-05-31')
        .set('Authorization', `Bearer ${await testApp.token(['timeline:read'])}`);
      expect(response.status).toBe(200);
      expect(response.body.length).toBeGreaterThan(0);
    });
  });

  describe('client mistakes are 400s, not 500s', () => {
    let token: string;
    beforeAll(async () => {
      token = await testApp.token(['timeline:read']);
    });

    it('asks for operationName when the document has two operations', async () => {
      const error = expectRefused(await post(testApp, { query: 'query A { __typename } query B { __typename }' }, token), 400, 'BAD_REQUEST');
      expect(error.message).toMatch(/2 operations \(A, B\).*operationName/);
    });

    it('names the operations when operationName matches none', async () => {
      const error = expectRefused(await post(testApp, { query: 'query A { resources { id } }', operationName: 'Nope' }, token), 400, 'BAD_REQUEST');
      expect(error.message).toContain('No operation named "Nope"');
    });

    it('refuses a chain of 2,000 fragments without overflowing the stack', async () => {
      expectRefused(await post(testApp, { query: fragmentChain(2_000) }, token), 400, 'GRAPHQL_PARSE_FAILED');
    });

    it('refuses an airport search of 50,000 characters', async () => {
      const error = expectRefused(await post(testApp, { query: `{ airports(search: "${'a'.repeat(50_000)}") { icao } }` }, token), 400, 'BAD_USER_INPUT');
      expect(error.message).toContain('at most 100');
    });

    it('refuses a subscription over HTTP, pointing to WebSocket', async () => {
      const query = 'subscription { timelineChanged(start: "2026-06-08", end: "2026-06-14") { flightId } }';
      const error = expectRefused(await post(testApp, { query }, token), 400, 'BAD_REQUEST');
      expect(error.message).toMatch(/^Subscriptions are served over WebSocket \(graphql-ws\) on \/graphql, not over HTTP/);
    });

    it('answers a failing query the same way when it runs compiled (second time) as the first time', async () => {
      const query = '{ timelineEvents(view: CALENDAR, start: "nope", end: "2026-01-01") { flightId } }';
      const first = await post(testApp, { query }, token);
      const second = await post(testApp, { query }, token);
      const third = await post(testApp, { query }, token);
      expectRefused(first, 400, 'BAD_USER_INPUT');
      expect(second.status).toBe(first.status);
      expect(second.body).toEqual(first.body);
      expect(third.body).toEqual(first.body);
    });
  });
});

describe('GraphQL cost model', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp('graphql_cost_model', { GRAPHQL_MAX_ALIASES: '1000', GRAPHQL_MAX_TOKENS: '100000' });
  });
  afterAll(() => testApp.close());

  it('counts a timeline by its days: 980 one-field aliases over 366 days exceed the cost limit', async () => {
    const response = await post(testApp, { query: aliases(980, `timelineEvents(view: CALENDAR, ${YEAR}) { flightId }`) }, await testApp.token(['timeline:read']));
    const error = expectRefused(response, 400, 'QUERY_TOO_COMPLEX');
    expect(error.message).toMatch(/^Query cost \d+ exceeds the limit of 200000/);
    const [detail] = error.extensions.details as Array<{ cost: number; maxCost: number }>;
    // 980 × (1 + 366 days × 20 flights a day).
    expect(detail.cost).toBe(980 * (1 + 366 * 20));
    expect(detail.maxCost).toBe(200_000);
  });

  it('answers a chain of 2,000 fragments with a 4xx even when the token limit lets it be parsed', async () => {
    const response = await post(testApp, { query: fragmentChain(2_000) }, await testApp.token(['timeline:read']));
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(response.text.length).toBeLessThan(4096);
  });

  it('costs one document by its variables each time: a cost remembered for one range is never reused for another', async () => {
    // The same text (one parsed document, whose costs are remembered by variables) with a day, then a year, then a day again.
    const query = `query($start: String!, $end: String!) ${aliases(980, 'timelineEvents(view: CALENDAR, start: $start, end: $end) { flightId }')}`;
    const token = await testApp.token(['timeline:read']);
    const day = { start: '2026-06-01', end: '2026-06-01' };
    const year = { start: '2026-06-01', end: '2027-06-01' };
    for (const variables of [day, year, day, year]) {
      const response = await post(testApp, { query, variables }, token);
      if (variables === day) {
        expect(response.status).toBe(200);
        expect(response.body.data.a979).toEqual([]);
      } else {
        const [detail] = expectRefused(response, 400, 'QUERY_TOO_COMPLEX').extensions.details as Array<{ cost: number }>;
        expect(detail.cost).toBe(980 * (1 + 366 * 20));
      }
    }
  });

  it('coerces variables it has not met with this document: values that passed once never vouch for others', async () => {
    // Coercion is skipped for variables whose cost is already known (they passed it then).
    const query = 'query($view: TimelineView!, $start: String!, $end: String!) { timelineEvents(view: $view, start: $start, end: $end) { flightId } }';
    const token = await testApp.token(['timeline:read']);
    const good = { view: 'CALENDAR', start: '2026-06-01', end: '2026-06-01' };
    for (const variables of [good, { ...good, view: 'SIDEWAYS' }, good, { ...good, view: 'SIDEWAYS' }, { ...good, start: 20260601 }]) {
      const response = await post(testApp, { query, variables }, token);
      if (variables === good) expect(response.status).toBe(200);
      else expect(expectRefused(response, 400, 'BAD_USER_INPUT').message).toMatch(/^Variable "\$(view|start)" got invalid value/);
    }
  });

  it('lets a one-day timeline with a few aliases through', async () => {
    const response = await post(testApp, { query: aliases(10, 'timelineEvents(view: CALENDAR, start: "2026-06-01", end: "2026-06-01") { flightId }') }, await testApp.token(['timeline:read']));
    expect(response.status).toBe(200);
    expect(response.body.data.a9).toEqual([]);
  });
});

describe('GraphQL execution limits', () => {
  let small: TestApp;
  beforeAll(async () => {
    small = await startTestApp('graphql_execution_limits', { RESPONSE_MAX_BYTES: '2048', GRAPHQL_TIMEOUT_MS: '1' });
    await seedDemoData(small.database.models, { today: new Date('2026-11-21T00:00:00Z'), flights: 60 });
  });
  afterAll(() => small.close());

  it('stops a query that runs past GRAPHQL_TIMEOUT_MS with 400 QUERY_TIMEOUT and no partial data', async () => {
    const query = aliases(10, `timelineEvents(view: CALENDAR, ${YEAR}) { flightId }`);
    const response = await post(small, { query }, await small.token(['timeline:read']));
    const error = expectRefused(response, 400, 'QUERY_TIMEOUT');
    expect(error.message).toContain('limit of 1 ms');
    expect(response.body.errors).toHaveLength(1);
  });

  it('stops a REST timeline past GRAPHQL_TIMEOUT_MS the same way (the facade runs its operation prepared, with the same clock)', async () => {
    const response = await request(small.app).get('/api/broker/v0/calendar/timeline/event?start=2026-06-01&end=2027-05-31').set('Authorization', `Bearer ${await small.token(['timeline:read'])}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'QUERY_TIMEOUT', message: expect.stringContaining('limit of 1 ms') });
  });

  it('runs every field of a mutation past GRAPHQL_TIMEOUT_MS and reports each write', async () => {
    const fields = Array.from({ length: 20 }, (_, index) => {
      const input = `{ flightNumber: "TMO${100 + index}", resourceId: 1, departureIcao: "LIRF", departureAt: "2027-03-01T09:00:00Z", arrivalIcao: "LIML", arrivalAt: "2027-03-01T10:10:00Z" }`;
      return `f${index}: createFlight(input: ${input}) { flightId flightNumber }`;
    });
    const response = await post(small, { query: `mutation { ${fields.join(' ')} }` }, await small.token(['flights:write']));
    expect(response.body.errors).toBeUndefined();
    expect(response.status).toBe(200);
    const reported = Object.values(response.body.data as Record<string, { flightId: number; flightNumber: string }>);
    expect(reported.map((flight) => flight.flightNumber)).toEqual(fields.map((_, index) => `TMO${100 + index}`));
    // What the database holds, read through the driver: exactly the flights the answer reports.
    const stored = await small.database.connection.db!.collection('flights').find({ flightNumber: /^TMO/ }, { projection: { _id: 0, flightId: 1 } }).toArray();
    expect(stored.map((flight) => flight.flightId).sort((a, b) => a - b)).toEqual(reported.map((flight) => flight.flightId).sort((a, b) => a - b));
  });
});

describe('GraphQL response size limit', () => {
  let small: TestApp;
  beforeAll(async () => {
    small = await startTestApp('graphql_response_limit', { RESPONSE_MAX_BYTES: '2048' });
    await seedDemoData(small.database.models, { today: new Date('2026-11-21T00:00:00Z'), flights: 60 });
  });
  afterAll(() => small.close());

  it('refuses an answer over RESPONSE_MAX_BYTES with 413 RESPONSE_TOO_LARGE, on /graphql and REST alike', async () => {
    const token = await small.token(['timeline:read']);
    const graphql = await post(small, { query: `{ timelineEvents(view: CALENDAR, ${YEAR}) { flightId flightNumber start end } }` }, token);
    const error = expectRefused(graphql, 413, 'RESPONSE_TOO_LARGE');
    expect(error.message).toMatch(/over the limit of 2048/);
    const rest = await request(small.app).get('/api/broker/v0/calendar/timeline/event?start=2026-06-01&end=2027-05-31').set('Authorization', `Bearer ${token}`);
    expect(rest.status).toBe(413);
    expect(rest.body.error.code).toBe('RESPONSE_TOO_LARGE');
    expect(rest.text.length).toBeLessThan(1024);
  });

  it('still answers what fits', async () => {
    const response = await post(small, { query: '{ resources { id } }' }, await small.token(['timeline:read']));
    expect(response.status).toBe(200);
    expect(response.body.data.resources.length).toBeGreaterThan(0);
  });

  const createFlights = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, index) => {
      const input = `{ flightNumber: "${prefix}${100 + index}", resourceId: 2, departureIcao: "LIRF", departureAt: "2027-04-01T09:00:00Z", arrivalIcao: "LIML", arrivalAt: "2027-04-01T10:10:00Z" }`;
      return `f${index}: createFlight(input: ${input}) { flightId flightNumber departure { icao at localTime } arrival { icao at localTime } }`;
    }).join(' ');
  const storedFlightIds = async (prefix: string) =>
    (await small.database.connection.db!.collection('flights').find({ flightNumber: new RegExp(`^${prefix}`) }, { projection: { _id: 0, flightId: 1 } }).toArray())
      .map((flight) => flight.flightId as number)
      .sort((a, b) => a - b);

  it('answers a mutation over RESPONSE_MAX_BYTES in full: the writes happened and are reported', async () => {
    const response = await post(small, { query: `mutation { ${createFlights('RSZ', 20)} }` }, await small.token(['flights:write']));
    expect(response.body.errors).toBeUndefined();
    expect(response.status).toBe(200);
    expect(response.text.length).toBeGreaterThan(2048);
    const reported = Object.values(response.body.data as Record<string, { flightId: number }>).map((flight) => flight.flightId);
    expect(reported).toHaveLength(20);
    expect(await storedFlightIds('RSZ')).toEqual([...reported].sort((a, b) => a - b));
  });

  it('answers a REST push over RESPONSE_MAX_BYTES in full: the list was written', async () => {
    const created = await post(small, { query: `mutation { ${createFlights('RSP', 1)} }` }, await small.token(['flights:write']));
    const { flightId } = created.body.data.f0 as { flightId: number };
    // Every document expired before departure: one warning per record makes the answer large.
    const records = Array.from({ length: 30 }, (_, index) => ({
      id: index + 1, surname: 'Rossi', name: 'Mario', luogonascita: 'IT', nazionalita: 'IT', typedoc: 'P', numberdoc: `YA${2_000_000 + index}`,
      date_born: '1980-05-01', scadenza: '2027-01-01', issuingstate: 'IT', email: null, phone: null, is_carring_infant: false, gender: 'M', parent_id: null,
    }));
    const response = await request(small.app)
      .post(`/api/broker/v0/flight/${flightId}/passenger`)
      .set('Authorization', `Bearer ${await small.token(['passengers:write'])}`)
      .send({ created: records, modified: [], deleted: [] });
    expect(response.status).toBe(200);
    expect(response.text.length).toBeGreaterThan(2048);
    expect(response.body).toMatchObject({ status: 'ok', version: 1, created: 30, passengers: 30 });
    expect(response.body.warnings).toHaveLength(30);
    const stored = await small.database.connection.db!.collection('passenger_lists').findOne({ flightId });
    expect((stored?.passengers as unknown[] | undefined)?.length).toBe(30);
  });
});

describe('GraphQL error messages in production', () => {
  it('never suggests field names ("Did you mean") in production, and does elsewhere', async () => {
    const production = await startTestApp('graphql_suggestions_prod', { NODE_ENV: 'production' });
    const development = await startTestApp('graphql_suggestions_dev', { NODE_ENV: 'development' });
    try {
      const query = { query: '{ resourcez { id } }' };
      const hidden = await post(production, query, await production.token());
      expect(hidden.status).toBe(400);
      expect(hidden.body.errors[0].message).toContain('Cannot query field "resourcez"');
      expect(hidden.text).not.toMatch(/Did you mean|"resources"/);
      const shown = await post(development, query, await development.token());
      expect(shown.body.errors[0].message).toMatch(/Did you mean "resources"/);
      const variables = { query: PUSH, variables: { c: { created: [{ surnam: 'X' }], modified: [], deleted: [] } } };
      const hiddenInput = await post(production, variables, await production.token());
      expect(hiddenInput.status).toBe(400);
      expect(hiddenInput.text).not.toMatch(/Did you mean|"surname"/);
    } finally {
      await production.close();
      await development.close();
    }
  });
});

describe('GraphQL answers sent as bytes', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp('graphql_answer_bytes');
    await seedDemoData(testApp.database.models, { today: new Date('2026-11-21T00:00:00Z'), flights: 40 });
  });
  afterAll(() => testApp.close());

  it('sends the encoded answer and lets go of its bytes and of the context once sent', async () => {
    // What the request's context holds when the answer has gone: a context can outlive its request
    // (until V8's next full collection), so it must not keep the answer's bytes; and the response,
    // which V8 keeps in its old generation, must no longer point at the context.
    const kept: { bytes?: Buffer }[] = [];
    const leftOnResponse: unknown[] = [];
    const outer = express();
    outer.use((_req, res, next) => {
      // Every context the route puts on res.locals, seen as it is put there.
      let current: { answer?: { bytes?: Buffer } } | undefined;
      const contexts: NonNullable<typeof current>[] = [];
      Object.defineProperty(res.locals, 'graphqlContext', {
        get: () => current,
        set: (context: typeof current) => {
          current = context;
          if (context) contexts.push(context);
        },
      });
      res.on('finish', () => {
        for (const context of contexts) if (context.answer) kept.push({ ...context.answer });
        leftOnResponse.push(res.locals.graphqlContext);
      });
      next();
    });
    outer.use(testApp.app);
    const query = `{ timelineEvents(view: CALENDAR, ${YEAR}) { flightId flightNumber start end } }`;
    const response = await post({ ...testApp, app: outer }, { query }, await testApp.token(['timeline:read']));
    expect(response.status).toBe(200);
    expect(response.body.data.timelineEvents.length).toBeGreaterThan(20);
    expect(response.text).toBe(`${JSON.stringify(response.body)}\n`);
    expect(kept).toHaveLength(1);
    expect(kept[0].bytes).toBeUndefined();
    expect(leftOnResponse).toEqual([undefined]);
  });
});
