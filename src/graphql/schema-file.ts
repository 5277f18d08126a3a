import { lexicographicSortSchema, printSchema } from 'graphql';
import { gatewaySchema } from './schema';

export const SCHEMA_FILE_BANNER = [
  '# DO NOT EDIT: generated from the type-graphql code in src/ by `npm run schema`.',
  '# `npm test` fails when this file is stale.',
].join('\n');

/** The committed SDL: sorted so it diffs well, under a do-not-edit banner. */
export async function renderSchemaFile(): Promise<string> {
  return `${SCHEMA_FILE_BANNER}\n\n${printSchema(lexicographicSortSchema(await gatewaySchema()))}\n`;
}
