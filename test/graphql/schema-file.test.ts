import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GraphQLEnumType } from 'graphql';
import { ErrorCode } from '../../src/errors';
import { gatewaySchema } from '../../src/graphql/schema';
import { renderSchemaFile, SCHEMA_FILE_BANNER } from '../../src/graphql/schema-file';

describe('schema/schema.graphql', () => {
  it('is what the code generates now (run `npm run schema` after changing a type or resolver)', async () => {
    const committed = readFileSync(path.join(__dirname, '../../schema/schema.graphql'), 'utf8');
    expect(committed.startsWith(SCHEMA_FILE_BANNER)).toBe(true);
    expect(committed).toBe(await renderSchemaFile());
  });
});

describe('the ErrorCode enum', () => {
  it('lists every code an error can carry in extensions.code', async () => {
    const type = (await gatewaySchema()).getType('ErrorCode');
    expect(type).toBeInstanceOf(GraphQLEnumType);
    expect((type as GraphQLEnumType).getValues().map((value) => value.name)).toEqual(Object.values(ErrorCode));
  });
});
