import { buildClientSchema, getIntrospectionQuery, type IntrospectionOptions, type IntrospectionQuery } from 'graphql';
import request from 'supertest';
import { startTestApp, type TestApp } from '../helpers/test-app';

/*
 * Introspection needs no token, and neither the depth rule (it leaves introspection out) nor the
 * cost estimate (an introspection list counts as one row) bounded it: 20 aliases of a whole
 * __schema, 1.1 kB, answered 2.69 MB after 270 ms of CPU. Its breadth is bounded before execution:
 * one __schema per operation, a few __type, no aliases inside them. What clients really send
 * still passes.
 */

const post = (testApp: TestApp, body: object, token?: string) => {
  const call = request(testApp.app).post('/graphql').set('Content-Type', 'application/json');
  if (token) call.set('Authorization', `Bearer ${token}`);
  return call.send(body);
};

/** A validation refusal (400 GRAPHQL_VALIDATION_FAILED), small, with no data: nothing was executed. */
function expectRefused(response: request.Response): string[] {
  expect(response.status).toBe(400);
  expect(response.body.data ?? null).toBeNull();
  expect(response.body.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual(response.body.errors.map(() => 'GRAPHQL_VALIDATION_FAILED'));
  expect(response.text.length).toBeLessThan(4096);
  return response.body.errors.map((error: { message: string }) => error.message);
}

const WHOLE_TYPE = 'name kind fields { name args { name } type { name fields { name type { name kind } } } }';
const aliasesOf = (count: number, field: string, prefix = 's') => Array.from({ length: count }, (_, index) => `${prefix}${index}: ${field}`).join(' ');

describe('introspection limits', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp('graphql_introspection_limits');
  });
  afterAll(() => testApp.close());

  describe('what clients send passes, without a token', () => {
    const variants: Array<[string, IntrospectionOptions | undefined]> = [
      ['the default (Apollo Client devtools)', undefined],
      ['without descriptions', { descriptions: false }],
      ['with specifiedByUrl', { specifiedByUrl: true }],
      ['with directiveIsRepeatable', { directiveIsRepeatable: true }],
      ['with schemaDescription', { schemaDescription: true }],
      ['with inputValueDeprecation (Apollo Sandbox)', { inputValueDeprecation: true }],
      ['with oneOf', { oneOf: true }],
      [
        'with every option (graphql-codegen)',
        { descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true },
      ],
    ];
    it.each(variants)('getIntrospectionQuery() %s', async (_name, options) => {
      const response = await post(testApp, { query: getIntrospectionQuery(options), operationName: 'IntrospectionQuery' });
      expect(response.body.errors).toBeUndefined();
      expect(response.status).toBe(200);
      // What an explorer does with it.
      const schema = buildClientSchema(response.body.data as IntrospectionQuery);
      expect(schema.getQueryType()?.getFields()).toHaveProperty('timelineEvents');
    });

    it('GraphiQL’s two introspection queries (its /graphiql page sends the first, and the second if the first has no data)', async () => {
      // As @graphiql/react's useIntrospectionQuery builds them.
      const query = getIntrospectionQuery({ inputValueDeprecation: undefined, schemaDescription: undefined });
      for (const sent of [query, query.replace('subscriptionType { name }', '')]) {
        const response = await post(testApp, { query: sent, operationName: 'IntrospectionQuery' });
        expect(response.status).toBe(200);
        expect(response.body.data.__schema.queryType.name).toBe('Query');
      }
    });

    it('Apollo Kotlin’s pre-introspection query: five aliased __type', async () => {
      const query = `query PreIntrospectionQuery {
        schema: __type(name: "__Schema") { ...TypeFields }
        type: __type(name: "__Type") { ...TypeFields }
        directive: __type(name: "__Directive") { ...TypeFields }
        field: __type(name: "__Field") { ...TypeFields }
        inputValue: __type(name: "__InputValue") { ...TypeFields }
      }
      fragment TypeFields on __Type { fields { name args { name } } }`;
      const response = await post(testApp, { query });
      expect(response.status).toBe(200);
      expect(response.body.data.directive.fields.map((field: { name: string }) => field.name)).toContain('isRepeatable');
    });

    it('the same __schema selected twice under one name (merged by execution, run once), an alias on __schema itself, and ten __type', async () => {
      const merged = await post(testApp, { query: '{ __schema { queryType { name } } ...More } fragment More on Query { __schema { types { name } } }' });
      expect(merged.status).toBe(200);
      expect(merged.body.data.__schema).toMatchObject({ queryType: { name: 'Query' }, types: expect.arrayContaining([{ name: 'Flight' }]) });
      const renamed = await post(testApp, { query: '{ schema: __schema { queryType { name } } }' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.data.schema.queryType.name).toBe('Query');
      const types = await post(testApp, { query: `{ ${aliasesOf(10, '__type(name: "Flight") { name }', 't')} }` });
      expect(types.status).toBe(200);
      expect(types.body.data.t9).toEqual({ name: 'Flight' });
    });
  });

  describe('more is refused before it runs, with a 400 saying what is allowed', () => {
    it('refuses the reported document: 20 aliases of a whole __schema, without a token', async () => {
      const query = `{ ${aliasesOf(20, `__schema { types { ${WHOLE_TYPE} } }`)} }`;
      const [message] = expectRefused(await post(testApp, { query }));
      expect(message).toBe(
        'The operation selects __schema 20 times (s0: __schema, s1: __schema, s2: __schema, s3: __schema, s4: __schema, …); at most 1 per operation is allowed: one __schema answers the whole schema, select it once',
      );
    });

    it('refuses it with a token as well', async () => {
      const query = `{ ${aliasesOf(2, '__schema { queryType { name } }')} }`;
      const [message] = expectRefused(await post(testApp, { query }, await testApp.token()));
      expect(message).toMatch(/^The operation selects __schema 2 times/);
    });

    it('counts __schema through fragment spreads and inline fragments', async () => {
      const spreads = '{ ...A ...B } fragment A on Query { a: __schema { queryType { name } } } fragment B on Query { ... on Query { b: __schema { queryType { name } } } }';
      expect(expectRefused(await post(testApp, { query: spreads }))).toEqual([expect.stringMatching(/^The operation selects __schema 2 times \(a: __schema, b: __schema\)/)]);
      const inline = '{ __schema { queryType { name } } ... { again: __schema { queryType { name } } } }';
      expect(expectRefused(await post(testApp, { query: inline }))).toEqual([expect.stringMatching(/^The operation selects __schema 2 times \(__schema, again: __schema\)/)]);
    });

    it('refuses more than ten __type', async () => {
      const query = `{ ${aliasesOf(11, '__type(name: "Flight") { name }', 't')} }`;
      const [message] = expectRefused(await post(testApp, { query }));
      expect(message).toMatch(/^The operation selects __type 11 times \(t0: __type, .*, …\); at most 10 per operation are allowed: select __schema \{ types \{ … \} \} to read more types at once$/);
    });

    it('refuses aliases inside __schema and __type: 20 aliases of types in one __schema answered as much as 20 __schema', async () => {
      const inner = `{ __schema { ${aliasesOf(20, `types { ${WHOLE_TYPE} }`, 't')} } }`;
      expect(expectRefused(await post(testApp, { query: inner }))).toEqual([
        'Fields inside __schema and __type take no alias (found "t0: types"): select each field once, under its own name',
      ]);
      // A leaf or __typename repeated under many names multiplies the answer as well; so does a fragment.
      const leaves = `{ __type(name: "Query") { fields { type { fields { ${aliasesOf(3, '__typename', 'n')} } } } } }`;
      expect(expectRefused(await post(testApp, { query: leaves }))).toEqual([expect.stringContaining('(found "n0: __typename")')]);
      const fragment = '{ __schema { types { ...T } } } fragment T on __Type { name fields { again: name } }';
      expect(expectRefused(await post(testApp, { query: fragment }))).toEqual([expect.stringContaining('(found "again: name")')]);
    });

    it('still refuses introspection nested deeper than graphql-js allows (its MaxIntrospectionDepthRule)', async () => {
      const query = '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }';
      expect(expectRefused(await post(testApp, { query }))).toEqual(['Maximum introspection depth exceeded']);
    });

    it('refuses a document of several operations for any of them, as the other document limits do', async () => {
      const query = `query Small { __schema { queryType { name } } } query Wide { ${aliasesOf(2, '__schema { queryType { name } }')} }`;
      const [message] = expectRefused(await post(testApp, { query, operationName: 'Small' }));
      expect(message).toMatch(/^The operation selects __schema 2 times/);
    });
  });
});
