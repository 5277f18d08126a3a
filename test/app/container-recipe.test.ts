import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { MongoClient } from 'mongodb';
import { loadConfig } from '../../src/config';
import { testDatabaseUri, uniqueDatabaseName } from '../helpers/database';
import { freePort, killAll, ROOT, startProcess, waitFor } from './child-processes';

jest.setTimeout(600_000);

const run = promisify(execFile);

/** One instruction of the Dockerfile, continuation lines joined. */
interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's stages by name, each its instructions in order. */
function dockerStages(text: string): Map<string, Instruction[]> {
  const stages = new Map<string, Instruction[]>();
  let current: Instruction[] | undefined;
  const joined = text.replace(/\\\n/g, ' ').split('\n');
  for (const line of joined) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const [, keyword, args] = /^(\S+)\s+(.*)$/.exec(trimmed)!;
    if (keyword.toUpperCase() === 'FROM') {
      current = [];
      stages.set(/\sAS\s+(\S+)/i.exec(args)![1], current);
    }
    current!.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

/** `RUN --mount=… npm ci …` → `npm ci …`: the build-cache mounts are a container-engine matter. */
function runCommand(args: string): string {
  return args.replace(/^(--\S+\s+)+/, '');
}

/** `ENV A=1 B=2` → {A: '1', B: '2'}. */
function envOf(args: string): Record<string, string> {
  return Object.fromEntries(args.split(/\s+/).map((pair) => pair.split('=') as [string, string]));
}

/**
 * Performs a stage's instructions in `dir`: COPY from the repository (or from an earlier stage's
 * folder with --from), RUN through sh, ENV collected. The build stage's full `npm ci` is replaced
 * by a link to the repository's own install (the same lockfile; what the image adds there is
 * nothing the runtime keeps). Returns the stage's environment and the instructions it did not run.
 */
async function performStage(instructions: Instruction[], dir: string, stageDirs: Map<string, string>, shortcutFullInstall: boolean) {
  const env: Record<string, string> = {};
  const rest: Instruction[] = [];
  for (const { keyword, args } of instructions) {
    if (keyword === 'COPY') {
      const parts = args.split(/\s+/);
      const from = parts[0].startsWith('--from=') ? stageDirs.get(parts.shift()!.slice('--from='.length)) : undefined;
      const destination = parts.pop()!;
      // Docker's rule: into the folder when it ends with / (or is .) or when several sources are named.
      const intoFolder = /(^|\/)\.?\/?$/.test(destination) || destination.endsWith('/') || parts.length > 1;
      for (const source of parts) {
        const origin = from ? path.join(from, path.relative('/app', source)) : path.join(ROOT, source);
        cpSync(origin, intoFolder ? path.join(dir, destination, path.basename(source)) : path.join(dir, destination), { recursive: true });
      }
    } else if (keyword === 'RUN') {
      const command = runCommand(args);
      if (shortcutFullInstall && /^npm ci(?!.*--omit=dev)/.test(command)) {
        symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
        continue;
      }
      await run('sh', ['-c', command], { cwd: dir, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
    } else if (keyword === 'ENV') {
      Object.assign(env, envOf(args));
    } else if (!['FROM', 'WORKDIR'].includes(keyword)) {
      rest.push({ keyword, args });
    }
  }
  return { env, rest };
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

/**
 * The embedded engine's modules by file name without extension (what a build of them would be
 * called), less the names the service's own sources use too (index, errors, logger...).
 */
function engineOnlyModuleNames(): Set<string> {
  const names = (dir: string) => filesUnder(path.join(ROOT, dir)).map((file) => path.basename(file).replace(/\.ts$/, ''));
  const service = new Set(['src', 'rest-facade', 'bench', 'scripts'].flatMap(names));
  return new Set(names('packages/embedded-mongo/src').filter((name) => !service.has(name)));
}

function jsonArray(instruction: Instruction | undefined): string[] {
  if (!instruction) throw new Error('instruction missing from the Dockerfile');
  return JSON.parse(instruction.args.replace(/^--\S+\s+/g, '').replace(/^CMD\s+/, '')) as string[];
}

describe('the container recipe (Dockerfile, compose.yaml) without a container engine', () => {
  let work: string;
  const databaseUri = testDatabaseUri(uniqueDatabaseName('container_recipe'));

  beforeAll(() => {
    work = mkdtempSync(path.join(os.tmpdir(), 'broker-image-'));
  });

  afterAll(async () => {
    await killAll();
    rmSync(work, { recursive: true, force: true });
    const client = await MongoClient.connect(databaseUri);
    await client.db().dropDatabase();
    await client.close();
  });

  it("builds, installs production dependencies only, and the image's command and health check serve with the service's V8 flags", async () => {
    const stages = dockerStages(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
    expect([...stages.keys()]).toEqual(['build', 'runtime']);
    const stageDirs = new Map<string, string>();
    for (const name of stages.keys()) stageDirs.set(name, path.join(work, name));

    await performStage(stages.get('build')!, stageDirs.get('build')!, stageDirs, true);
    expect(existsSync(path.join(stageDirs.get('build')!, 'dist/.build-stamp'))).toBe(true);
    // The build does not contain the embedded engine: none of its modules compiled anywhere in dist/.
    const engineModules = engineOnlyModuleNames();
    expect([...engineModules]).toEqual(expect.arrayContaining(['wire-protocol', 'command-dispatcher', 'thread-entry', 'handshake']));
    const built = filesUnder(path.join(stageDirs.get('build')!, 'dist')).filter((file) => file.endsWith('.js'));
    expect(built.length).toBeGreaterThan(100);
    expect(built.filter((file) => file.startsWith('packages/') || engineModules.has(path.basename(file, '.js')))).toEqual([]);

    const runtimeDir = stageDirs.get('runtime')!;
    const runtime = await performStage(stages.get('runtime')!, runtimeDir, stageDirs, false);
    // Production dependencies only: no compiler, no test runner, no sources, no embedded engine
    // (nor mingo, which only the engine uses).
    for (const absent of ['node_modules/typescript', 'node_modules/jest', 'node_modules/@swc/core', 'node_modules/@broker/embedded-mongo', 'node_modules/mingo', 'packages', 'src', 'test']) {
      expect({ absent, exists: existsSync(path.join(runtimeDir, absent)) }).toEqual({ absent, exists: false });
    }
    expect(existsSync(path.join(runtimeDir, 'node_modules/mongoose'))).toBe(true);
    expect(runtime.rest.find((i) => i.keyword === 'USER')?.args).toBe('node');

    const port = await freePort();
    const secret = 'container-recipe-secret-0123456789abcdef';
    const command = jsonArray(runtime.rest.find((i) => i.keyword === 'CMD'));
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...runtime.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      MONGODB_URI: databaseUri,
      JWT_SECRET: secret,
    };
    expect(runtime.env.NODE_ENV).toBe('production');
    // A .env beside package.json fills what the environment leaves unset; the environment wins.
    writeFileSync(path.join(runtimeDir, '.env'), `GRAPHQL_INTROSPECTION=true\nJWT_SECRET=a-dotenv-secret-that-the-environment-overrides\n`);
    const service = startProcess(command[0], command.slice(1), { cwd: runtimeDir, env });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(async () => {
      if (service.child.exitCode !== null) throw new Error(`the image's command exited: ${service.output()}`);
      return (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200;
    }, 120_000);
    expect(service.output()).not.toMatch(/building|tsc/i);

    // The service process (the command's child, started with the flags) carries the V8 flags.
    const { service: flags } = JSON.parse(readFileSync(path.join(ROOT, 'scripts/v8-flags.json'), 'utf8')) as { service: string[] };
    const { stdout: children } = await run('ps', ['-o', 'pid=', '--ppid', String(service.child.pid)]);
    const cmdlines = [service.child.pid!, ...children.split('\n').filter((l) => l.trim()).map(Number)].map((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'),
    );
    expect(cmdlines.some((argv) => flags.every((flag) => argv.includes(flag)))).toBe(true);

    // The health check as the image runs it.
    const healthcheck = runtime.rest.find((i) => i.keyword === 'HEALTHCHECK');
    const check = JSON.parse(/CMD\s+(\[.*\])$/.exec(healthcheck!.args)![1]) as string[];
    await expect(run(check[0], check.slice(1), { cwd: runtimeDir, env })).resolves.toBeDefined();

    // A token minted the way compose.yaml's comment says, then a real query.
    const { stdout: token } = await run('node', ['dist/scripts/token.js', '--sub', 'ops', '--scope', 'timeline:read'], { cwd: runtimeDir, env });
    const answer = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token.trim()}` },
      body: JSON.stringify({ query: '{ resources { id } }' }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ data: { resources: expect.any(Array) } });
    const introspection = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token.trim()}` },
      body: JSON.stringify({ query: '{ __schema { queryType { name } } }' }),
    });
    expect(await introspection.json()).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);

    // The image's build in development without MONGODB_URI: the engine is not there to start, and
    // the service refuses, saying so, instead of failing on a missing module.
    const { MONGODB_URI: _unset, ...withoutDatabase } = env;
    const development = startProcess(command[0], command.slice(1), { cwd: runtimeDir, env: { ...withoutDatabase, NODE_ENV: 'development' } });
    expect(await development.exited).toBe(1);
    expect(development.output()).toMatch(/MONGODB_URI is not set and the embedded development engine \(@broker\/embedded-mongo, a development dependency\) is not installed/);
    expect(development.output()).not.toMatch(/Cannot find module/);
  });

  it("compose.yaml is valid YAML whose gateway settings the service's configuration accepts, with MongoDB 7 as a replica set", () => {
    const compose = parseYaml(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8')) as {
      services: Record<string, { image?: string; build?: string; command?: string[]; environment?: Record<string, string>; healthcheck?: { test: string[] }; depends_on?: Record<string, { condition: string }> }>;
    };
    const { mongo, gateway } = compose.services;
    expect(mongo.image).toBe('mongo:7');
    expect(mongo.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    expect(mongo.healthcheck?.test.join(' ')).toContain('rs.initiate');
    expect(gateway.build).toBe('.');
    expect(gateway.depends_on?.mongo.condition).toBe('service_healthy');

    // Interpolate ${NAME:-default} and ${NAME:?message} as compose does, the required ones with a sample value.
    const interpolate = (value: string) =>
      value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_all, name: string, kind?: string, rest?: string) =>
        kind === '-' ? rest! : name === 'JWT_SECRET' ? 'a-sample-secret-of-at-least-32-bytes-long' : `\${${name}}`,
      );
    const environment = Object.fromEntries(Object.entries(gateway.environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]));
    expect(environment.MONGODB_URI).toMatch(/replicaSet=rs0/);
    // Every variable compose sets is one the configuration reads, and the whole set validates.
    const read = new Set<string>();
    const recording = new Proxy({ NODE_ENV: 'production', ...environment } as Record<string, string | undefined>, {
      get(target, name: string) {
        read.add(name);
        return target[name];
      },
    });
    expect(() => loadConfig(recording)).not.toThrow();
    for (const name of Object.keys(environment)) expect({ name, read: read.has(name) }).toEqual({ name, read: true });
  });
});
