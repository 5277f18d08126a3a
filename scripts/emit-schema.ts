import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderSchemaFile } from '../src/graphql/schema-file';

/** Writes schema/schema.graphql from the code (run by `npm run schema`, before codegen). */
async function main(): Promise<void> {
  const target = path.resolve(__dirname, '../../schema/schema.graphql');
  writeFileSync(target, await renderSchemaFile());
  console.log(`wrote ${path.relative(process.cwd(), target)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
