/**
 * `npm run docs:config`: writes the configuration tables of docs/configuration.md (between their
 * markers) and .env.example from the declaration in src/config/variables.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderEnvExample, withConfigurationTables } from '../src/config/docs';

const root = path.resolve(__dirname, '..');
const chapter = path.join(root, 'docs/configuration.md');
writeFileSync(chapter, withConfigurationTables(readFileSync(chapter, 'utf8')));
writeFileSync(path.join(root, '.env.example'), renderEnvExample());
console.log('wrote docs/configuration.md (tables) and .env.example');
