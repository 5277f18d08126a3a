#!/usr/bin/env node
/**
 * `npm start`, `npm run seed`, `npm run bench`, `npm run token`: compile the TypeScript when the
 * build is missing or older than the sources (so they work straight after `npm ci`), then run the
 * compiled entry point with the remaining arguments.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const ENTRIES = {
  '--seed': 'dist/src/seed/seed-cli.js',
  '--bench': 'dist/bench/index.js',
  '--token': 'dist/scripts/token.js',
  '--emit-schema': 'dist/scripts/emit-schema.js',
};
const STAMP = path.join(root, 'dist', '.build-stamp');
const SOURCES = ['src', 'rest-facade', 'bench', 'scripts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

function newestMtime(target) {
  let stat;
  try {
    stat = fs.statSync(target);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

function buildIfNeeded() {
  const built = fs.existsSync(STAMP) ? fs.statSync(STAMP).mtimeMs : 0;
  const changed = Math.max(...SOURCES.map((source) => newestMtime(path.join(root, source))));
  if (built >= changed) return;
  process.stderr.write('building (TypeScript → dist/)…\n');
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
  if (result.status !== 0) {
    process.stderr.write('build failed: fix the errors above\n');
    process.exit(result.status ?? 1);
  }
  fs.writeFileSync(STAMP, new Date().toISOString());
}

const [mode, ...rest] = process.argv.slice(2);
const entry = ENTRIES[mode] ?? 'dist/src/main.js';
const args = ENTRIES[mode] ? rest : process.argv.slice(2);
buildIfNeeded();
if (ENTRIES[mode]) {
  // One-shot tools run as their own main module (they check require.main).
  const result = spawnSync(process.execPath, [path.join(root, entry), ...args], { stdio: 'inherit', cwd: process.cwd() });
  process.exit(result.status ?? 1);
}
// The service runs in this process so signals (SIGTERM, Ctrl-C) reach it directly.
process.argv = [process.argv[0], path.join(root, entry), ...args];
require(path.join(root, entry));
