import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, type GraphQLObjectType } from 'graphql';

const ROOT = path.join(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The root fields of the committed SDL (test/graphql/schema-file.test.ts holds it equal to the code). */
const schema = buildSchema(read('schema/schema.graphql'));
const rootFields = (type: 'Query' | 'Mutation') => Object.keys((schema.getType(type) as GraphQLObjectType).getFields());
const named = (text: string) => new Set([...text.matchAll(/`(\w+)`/g)].map(([, name]) => name));

/*
 * The lists of operations the chapters keep by hand: each new query or mutation must be added to
 * them (audit: previewPassengerUpload and passengerListDownloadUrl were left out).
 */
describe('the operation lists of the docs', () => {
  it('docs/authentication.md names the scope of every query and mutation that needs a token', () => {
    const text = read('docs/authentication.md');
    const table = /^\| Scope \| Grants \|\n((?:\|.*\|\n)+)/m.exec(text)?.[1];
    expect(table).toBeDefined();
    // node takes the scope of the object it answers; passengerTemplateUrl needs no token.
    const guarded = [...rootFields('Query'), ...rootFields('Mutation')].filter((name) => !['node', 'passengerTemplateUrl'].includes(name));
    const inTable = named(table!);
    expect(guarded.filter((name) => !inTable.has(name))).toEqual([]);
  });

  it('docs/graphql.md lists every query and mutation but the webhook operations', () => {
    const opening = read('docs/graphql.md').split('\n\n')[1];
    const listed = named(opening);
    const expected = [...rootFields('Query'), ...rootFields('Mutation')].filter((name) => !/webhook/i.test(name));
    expect(expected.filter((name) => !listed.has(name))).toEqual([]);
    expect(opening).toContain('the webhook operations');
  });
});
