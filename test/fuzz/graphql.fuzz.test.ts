import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';
import request from 'supertest';
import { ErrorCode } from '../../src/errors';
import { gatewaySchema } from '../../src/graphql/schema';
import { seedDemoData } from '../../src/seed/seed';
import { databaseDigest } from '../helpers/database-snapshot';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { FUZZ, hostileJson, hostileNumber, hostileString, INTERNAL_MESSAGE } from './hostile-values';

/**
 * Every GraphQL operation, driven with generated arguments built from the schema itself: mostly
 * well-typed but wrong (out-of-range ids, odd strings, missing and extra input fields), sometimes
 * any JSON at all. Whatever arrives: never a 5xx, always the error model, and a refused mutation
 * leaves the database exactly as it was.
 */

let testApp: TestApp;
let tokens: Record<string, string | undefined>;
const KNOWN_CODES = new Set<string>(Object.values(ErrorCode));

beforeAll(async () => {
  testApp = await startTestApp('fuzz_graphql', process.env.FUZZ_DEBUG ? { LOG_LEVEL: 'error' } : {});
  await seedDemoData(testApp.database.models, { flights: 12, today: new Date('2026-06-10T00:00:00Z') });
  tokens = {
    none: undefined,
    all: await testApp.token(),
    readOnly: await testApp.token(['timeline:read']),
    garbage: 'not.a.token',
  };
});
afterAll(() => testApp.close());

function plausible(type: GraphQLInputType, depth: number): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return plausible(type.ofType, depth);
  if (isListType(type)) return fc.array(argument(type.ofType, depth + 1), { maxLength: depth > 1 ? 2 : 5 });
  if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((value) => value.name));
  if (isInputObjectType(type)) {
    if (depth > 3) return fc.constant({});
    const fields = Object.fromEntries(Object.values(type.getFields()).map((field) => [field.name, argument(field.type, depth + 1)]));
    return fc.record(fields, { requiredKeys: [] });
  }
  switch (getNamedType(type).name) {
    case 'Int':
      return fc.oneof(fc.integer({ min: -3, max: 30 }), hostileNumber);
    case 'Float':
      return hostileNumber;
    case 'Boolean':
      return fc.boolean();
    case 'String':
      return fc.oneof(fc.constantFrom('2026-06-10', '2026-06-01', '2026-06-10T08:00:00+02:00', 'LIRF', 'EGLL', 'P', 'M'), hostileString);
    default:
      return fc.oneof(hostileString, fc.constant(null));
  }
}

function argument(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: plausible(type, depth) }, { weight: 1, arbitrary: hostileJson });
}

/** The leaf fields of a type (or interface, e.g. Node) and, one level down, of its object fields (no arguments needed). */
function selection(type: GraphQLOutputType, depth = 0): string {
  const named = getNamedType(type);
  if (isLeafType(named) || !(isObjectType(named) || isInterfaceType(named))) return '';
  const parts = Object.values(named.getFields())
    .filter((field) => field.args.every((arg) => !isNonNullType(arg.type)))
    .map((field) => {
      const inner = getNamedType(field.type);
      if (isLeafType(inner)) return field.name;
      return depth < 1 ? `${field.name} ${selection(field.type, depth + 1)}` : '';
    })
    .filter(Boolean);
  return `{ __typename ${parts.join(' ')} }`;
}

interface Operation {
  kind: 'query' | 'mutation';
  field: GraphQLField<unknown, unknown>;
}

function documentFor({ kind, field }: Operation): string {
  const declared = field.args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
  const passed = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  return `${kind} Fuzz${declared ? `(${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''} ${selection(field.type)} }`;
}

function expectErrorModel(status: number, body: { data?: unknown; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> }): void {
  if (status >= 500) throw new Error(`answered ${status}: ${JSON.stringify(body).slice(0, 1000)}`);
  if (status >= 400) expect(body.errors?.length).toBeGreaterThan(0);
  for (const error of body.errors ?? []) {
    expect(KNOWN_CODES.has(String(error.extensions?.code))).toBe(true);
    expect(error.extensions?.stacktrace).toBeUndefined();
    expect(error.message).not.toMatch(INTERNAL_MESSAGE);
    if (error.message.length > 2100) throw new Error(`a ${error.message.length}-character message: ${error.message.slice(0, 300)}…`);
  }
}

describe('GraphQL operations with generated arguments', () => {
  it('answer every query and mutation with data or the error model, never a 5xx, and refused writes change nothing', async () => {
    jest.setTimeout(300_000);
    const schema = await gatewaySchema();
    const operations: Operation[] = [
      ...Object.values(schema.getQueryType()!.getFields()).map((field) => ({ kind: 'query' as const, field })),
      ...Object.values(schema.getMutationType()!.getFields()).map((field) => ({ kind: 'mutation' as const, field })),
    ];
    const call = fc.constantFrom(...operations).chain((operation) =>
      fc.record({
        operation: fc.constant(operation),
        variables: fc.record(Object.fromEntries(operation.field.args.map((arg) => [arg.name, argument(arg.type)])), { requiredKeys: [] }),
        token: fc.constantFrom(...Object.keys(tokens)),
      }),
    );

    await fc.assert(
      fc.asyncProperty(call, async ({ operation, variables, token }) => {
        const before = operation.kind === 'mutation' ? await databaseDigest(testApp.database.connection) : '';
        const pending = request(testApp.app).post('/graphql').set('Content-Type', 'application/json');
        if (tokens[token]) pending.set('Authorization', `Bearer ${tokens[token]}`);
        const started = Date.now();
        const res = await pending.send(JSON.stringify({ query: documentFor(operation), variables }));
        if (process.env.FUZZ_DEBUG && (Date.now() - started > 300 || res.status >= 500)) console.log(Date.now() - started, operation.field.name, token, res.status, JSON.stringify(variables).slice(0, 300), JSON.stringify(res.body).slice(0, 300));
        expectErrorModel(res.status, res.body);
        const refused = res.body.errors?.length && !res.body.data?.[operation.field.name];
        if (operation.kind === 'mutation' && refused) expect(await databaseDigest(testApp.database.connection)).toBe(before);
      }),
      FUZZ,
    );
  });

  it('answer malformed documents, operation names and variables with a 4xx in the error model', async () => {
    const fragments = fc.constantFrom('{', '}', '(', ')', '...', 'on', 'query', 'mutation', 'subscription', 'fragment F on Query', '$v', ':', 'Int!', '@skip(if: true)', 'airports', 'flights', '__typename', 'a: ', '"x"', '1', ',', '[', ']', '#');
    const raw = fc.record({
      query: fc.oneof(fc.array(fragments, { maxLength: 30 }).map((parts) => parts.join(' ')), hostileString, hostileJson),
      operationName: fc.oneof(fc.constant(undefined), hostileString, hostileJson),
      variables: fc.oneof(fc.constant(undefined), hostileJson),
      extensions: fc.oneof(fc.constant(undefined), hostileJson),
    });
    await fc.assert(
      fc.asyncProperty(raw, fc.boolean(), async (body, withToken) => {
        const pending = request(testApp.app).post('/graphql').set('Content-Type', 'application/json');
        if (withToken) pending.set('Authorization', `Bearer ${tokens.all}`);
        const res = await pending.send(JSON.stringify(body));
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) {
          const errors = res.body.errors ?? [res.body.error];
          expect(errors.length).toBeGreaterThan(0);
          for (const error of errors) expect(String(error.message)).not.toMatch(INTERNAL_MESSAGE);
        }
      }),
      FUZZ,
    );
  });
});
