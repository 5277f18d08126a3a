import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../../src/config';
import { renderEnvExample, withConfigurationTables } from '../../src/config/docs';

/* The declaration (src/config/variables.ts) is the one place a variable is written: the docs and .env.example follow it. */

const ROOT = path.resolve(__dirname, '../..');
const REGENERATE = 'regenerate them with `npm run docs:config` (src/config/variables.ts is the source)';
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('configuration declaration', () => {
  it('is what docs/configuration.md tabulates', () => {
    const chapter = read('docs/configuration.md');
    const stale = withConfigurationTables(chapter) !== chapter;
    expect(stale ? `docs/configuration.md's tables differ from the declaration: ${REGENERATE}` : 'up to date').toBe('up to date');
  });

  it('is what .env.example lists, every variable once', () => {
    const example = read('.env.example');
    expect(example === renderEnvExample() ? 'up to date' : `.env.example differs from the declaration: ${REGENERATE}`).toBe('up to date');
    const listed = [...example.matchAll(/^# ([A-Z][A-Z0-9_]*)=/gm)].map(([, name]) => name);
    expect([...listed].sort()).toEqual(CONFIG_VARIABLES.map((declared) => declared.name).sort());
  });

  it('names each variable once, with a description and a docs section', () => {
    const names = CONFIG_VARIABLES.map((declared) => declared.name);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    for (const declared of CONFIG_VARIABLES) {
      expect(declared.name).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(declared.description).not.toMatch(/\||\n/);
    }
  });

  it.each(['development', 'production', 'test'])('accepts its own defaults with NODE_ENV=%s', (nodeEnv) => {
    // Defaults go through each variable's schema: one outside its own bounds would refuse here.
    const env = { NODE_ENV: nodeEnv, JWT_SECRET: 'a-secret-of-at-least-thirty-two-bytes', MONGODB_URI: 'mongodb://db/broker' };
    expect(loadConfig(env).nodeEnv).toBe(nodeEnv);
  });

  it('refuses a bad value of any variable naming that variable, never another', () => {
    const bad = ['-1', 'many', '99999999999999', 'http//x', 'not a zone/or url', '10.0.0.0/99'];
    for (const declared of CONFIG_VARIABLES) {
      for (const value of bad) {
        const env = { [declared.name]: value, OTEL_EXPORTER_OTLP_ENDPOINT: declared.name.startsWith('OTEL_') ? 'http://collector:4318' : '' };
        try {
          loadConfig(env);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          expect(`${declared.name}=${value}: ${(error as ConfigError).variable}`).toBe(`${declared.name}=${value}: ${declared.name}`);
          expect((error as Error).message).toMatch(new RegExp(`^Invalid configuration: ${declared.name} (must|cannot|is|"${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}")`));
        }
      }
    }
  });

  it('is read from the environment only by src/config/', () => {
    // Elsewhere the environment is only handed to loadConfig/tracingSettings/startupLogSettings as a whole.
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(path.join(ROOT, dir))) {
        const relative = path.join(dir, entry);
        if (statSync(path.join(ROOT, relative)).isDirectory()) {
          if (relative !== path.join('src', 'config')) walk(relative);
        } else if (entry.endsWith('.ts') && /process\.env(\.|\[)/.test(read(relative))) offenders.push(relative);
      }
    };
    walk('src');
    walk('rest-facade');
    expect(offenders).toEqual([]);
  });
});
