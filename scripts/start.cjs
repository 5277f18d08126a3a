#!/usr/bin/env node
/**
 * `npm start`, `npm run seed`, `npm run bench`, `npm run token`: compile the TypeScript when the
 * build is missing or older than the sources (so they work straight after `npm ci`), then run the
 * compiled entry point with the remaining arguments.
 * `npm run db` (`--db`): the embedded engine's own command (the @broker/embedded-mongo package, a
 * development dependency that ships its sources and compiles them on load: no build here).
 * `npm run build` (`--build`): compile and stamp the build, run nothing.
 * `npm run start:prod` (`--prebuilt`): the production command; runs the stamped build as it is and
 * never compiles (a production-only install has no TypeScript).
 *
 * `.env` beside package.json, when present, fills the variables the environment leaves unset (the
 * environment wins), before anything runs: every mode and the service's own child see it.
 *
 * Signals: package.json runs this file with `exec`, so npm's child is this node process itself
 * (without it, npm signals a `sh` that dies and leaves node running). The service runs in a node
 * process started with its V8 flags (scripts/v8-flags.json): this one when they were given, else a
 * child started with them; there SIGTERM reaches its graceful shutdown directly. The compiler, the
 * one-shot tools and that child receive every SIGTERM, SIGINT and SIGHUP this process gets, and this
 * process exits only after them, with their status.
 */
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
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
/** The folders tsconfig.build.json compiles into dist/. */
const COMPILED = ['src', 'rest-facade', 'bench', 'scripts'];
const SOURCES = [...COMPILED, 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
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

/** Compiles src/, rest-facade/, bench/ and scripts/ into dist/ and stamps the build; says how it goes while it runs. */
async function build(reason) {
  let tsc;
  try {
    tsc = require.resolve('typescript/bin/tsc');
  } catch {
    process.stderr.write(`${reason}, and TypeScript is not installed (a production-only install?): run \`npm run build\` where the dev dependencies are, then \`npm run start:prod\`\n`);
    process.exit(1);
  }
  const started = Date.now();
  process.stderr.write(`${reason}: building (TypeScript → dist/; about a minute on an idle machine, longer on a busy one)…\n`);
  const progress = setInterval(() => process.stderr.write(`  still building… ${Math.round((Date.now() - started) / 1000)} s\n`), 15_000);
  let interrupted = false;
  const noteSignal = () => (interrupted = true);
  for (const signal of FORWARDED) process.on(signal, noteSignal);
  const status = await run([tsc, '-p', path.join(root, 'tsconfig.build.json')], root);
  clearInterval(progress);
  for (const signal of FORWARDED) process.off(signal, noteSignal);
  if (interrupted) process.exit(status || 1);
  if (status !== 0) {
    process.stderr.write('build failed: fix the errors above\n');
    process.exit(status);
  }
  // Required here: the production image has start.cjs without the build's helpers (it never builds).
  const stale = require('./prune-build.cjs').pruneBuild(root, COMPILED);
  if (stale.length > 0) process.stderr.write(`removed ${stale.length} compiled file(s) whose source is gone\n`);
  fs.writeFileSync(STAMP, new Date().toISOString());
  process.stderr.write(`built in ${Math.round((Date.now() - started) / 1000)} s\n`);
}

async function buildIfNeeded() {
  const built = fs.existsSync(STAMP) ? fs.statSync(STAMP).mtimeMs : 0;
  if (built === 0) return build('no build yet');
  const changed = Math.max(...SOURCES.map((source) => newestMtime(path.join(root, source))));
  if (built < changed) return build('sources changed since the last build');
}

/** The production command's check: a stamped build must be there; it is never compiled here. */
function requirePrebuilt(entry) {
  if (fs.existsSync(STAMP) && fs.existsSync(path.join(root, entry))) return;
  process.stderr.write(`no build in ${path.join(root, 'dist')}: run \`npm run build\` first (the production command never compiles)\n`);
  process.exit(1);
}

/** Reads `.env` (KEY=value lines, Node's own parser) into process.env without overriding what is set. */
function loadDotEnv() {
  const file = path.join(root, '.env');
  if (!fs.existsSync(file)) return;
  try {
    process.loadEnvFile(file);
  } catch (error) {
    process.stderr.write(`cannot read ${file}: ${error.message}\n`);
    process.exit(1);
  }
}

/**
 * V8 flags the service needs at start-up (scripts/v8-flags.json): a heap's young generation is
 * sized when the process starts, so they cannot be set from inside it. Flags the operator set on
 * the command line or in NODE_OPTIONS win; a flag of the list already present is not added again.
 */
function missingServiceFlags() {
  const { service } = JSON.parse(fs.readFileSync(path.join(__dirname, 'v8-flags.json'), 'utf8'));
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return service.filter((flag) => !given.some((option) => option.split('=')[0] === flag.split('=')[0]));
}

/** `npm run db`: the engine package's command, with the service's V8 flags (its query path allocates as the service's does). */
async function runEngine(args) {
  let cli;
  try {
    cli = require.resolve('@broker/embedded-mongo/cli');
  } catch {
    process.stderr.write('npm run db needs the embedded development engine (@broker/embedded-mongo, a development dependency), which is not installed: run `npm ci` with the development dependencies\n');
    process.exit(1);
  }
  process.exit(await run([...missingServiceFlags(), cli, ...args], process.cwd()));
}

async function main() {
  const [mode, ...rest] = process.argv.slice(2);
  const entry = ENTRIES[mode] ?? 'dist/src/main.js';
  loadDotEnv();
  if (mode === '--db') return runEngine(rest);
  if (mode === '--build') return build('npm run build');
  if (mode === '--prebuilt') requirePrebuilt(entry);
  else await buildIfNeeded();
  if (ENTRIES[mode]) {
    // One-shot tools run as their own main module: they check require.main.
    process.exit(await run([path.join(root, entry), ...rest], process.cwd()));
  }
  const flags = missingServiceFlags();
  if (flags.length > 0) {
    // Started without them: run again with them (this process forwards signals and the exit status).
    process.exit(await run([...flags, path.join(__dirname, 'start.cjs'), ...process.argv.slice(2)], process.cwd()));
  }
  // The service runs in this process so signals reach its own shutdown handlers directly.
  process.argv = [process.argv[0], path.join(root, entry), ...(mode === '--prebuilt' ? rest : process.argv.slice(2))];
  require(path.join(root, entry));
}

main();
