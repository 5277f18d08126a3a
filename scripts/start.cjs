#!/usr/bin/env node
/**
 * `npm start`, `npm run db`, `npm run seed`, `npm run bench`, `npm run token`: compile the
 * TypeScript when the build is missing or older than the sources (so they work straight after
 * `npm ci`), then run the compiled entry point with the remaining arguments.
 *
 * Signals: package.json runs this file with `exec`, so npm's child is this node process itself
 * (without it, npm signals a `sh` that dies and leaves node running). The service then runs in this
 * process, so SIGTERM reaches its graceful shutdown directly; the compiler and the one-shot tools
 * run as child processes that receive every SIGTERM, SIGINT and SIGHUP this process gets, and this
 * process exits only after them, with their status.
 */
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const ENTRIES = {
  '--db': 'dist/src/db/embedded/cli.js',
  '--seed': 'dist/src/seed/seed-cli.js',
  '--bench': 'dist/bench/index.js',
  '--token': 'dist/scripts/token.js',
  '--emit-schema': 'dist/scripts/emit-schema.js',
};
const STAMP = path.join(root, 'dist', '.build-stamp');
const SOURCES = ['src', 'rest-facade', 'bench', 'scripts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP'];

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

/** Runs a child node process, passing on our signals; resolves with its exit code (128 + n after signal n). */
function run(args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: 'inherit', cwd });
    const forward = (signal) => child.kill(signal);
    for (const signal of FORWARDED) process.on(signal, forward);
    child.on('exit', (code, signal) => {
      for (const name of FORWARDED) process.off(name, forward);
      resolve(code ?? 128 + (constants.signals[signal] ?? 1));
    });
  });
}

async function buildIfNeeded() {
  const built = fs.existsSync(STAMP) ? fs.statSync(STAMP).mtimeMs : 0;
  const changed = Math.max(...SOURCES.map((source) => newestMtime(path.join(root, source))));
  if (built >= changed) return;
  process.stderr.write('building (TypeScript → dist/)…\n');
  let interrupted = false;
  const noteSignal = () => (interrupted = true);
  for (const signal of FORWARDED) process.on(signal, noteSignal);
  const status = await run([require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], root);
  for (const signal of FORWARDED) process.off(signal, noteSignal);
  if (interrupted) process.exit(status || 1);
  if (status !== 0) {
    process.stderr.write('build failed: fix the errors above\n');
    process.exit(status);
  }
  fs.writeFileSync(STAMP, new Date().toISOString());
}

async function main() {
  const [mode, ...rest] = process.argv.slice(2);
  const entry = ENTRIES[mode] ?? 'dist/src/main.js';
  await buildIfNeeded();
  if (ENTRIES[mode]) {
    // One-shot tools (and the engine) run as their own main module: they check require.main.
    process.exit(await run([path.join(root, entry), ...rest], process.cwd()));
  }
  // The service runs in this process so signals reach its own shutdown handlers directly.
  process.argv = [process.argv[0], path.join(root, entry), ...process.argv.slice(2)];
  require(path.join(root, entry));
}

main();
