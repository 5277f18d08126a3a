/**
 * Small requests against a minimal server (issue 28). The one-day REST timeline request, and its
 * neighbours (a day without flights, seven days), sent to three servers on one database: the
 * service's REST facade, the service's GraphQL endpoint (the facade's own document, so the same
 * entries), and the minimal server (bench/minimal-server.ts: node:http, jose, the plain driver, the
 * same JSON bytes, checked by md5 before anything is measured). The embedded engine runs in a
 * process of its own, as a real MongoDB would, so each server's CPU is its own work.
 *
 * CPU is read from outside: the sum over the serving process's threads of the time the kernel ran
 * them (/proc/<pid>/task/<tid>/schedstat, nanoseconds), before and after a window of requests sent
 * back to back on keep-alive connections, warm (a few unmeasured requests first). Rounds take every
 * target in turn, so the machine's drift hits all alike; figures are medians over the rounds, with
 * the machine's load average. The cold cost (the first request after the server sat idle) is
 * measured apart. Linux only (/proc).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import path from 'node:path';
import { print } from 'graphql';
import { TimelineLegacyEventsDocument } from '../src/graphql/generated/operations';
import { EXTENSION, PRELOAD, serviceV8Flags, startChild, type Child } from './child-process';
import { median } from './timeline-measure';

/** The benchmark server's secret and host (bench/timeline-server.ts): the minimal server verifies the same tokens and writes the same url. */
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret!';
const PUBLIC_HOST = 'bench.local';
const FACADE = '/api/broker/v0/calendar/timeline/event';

export interface SmallRange {
  name: string;
  start: string;
  end: string;
}

export const SMALL_RANGES: SmallRange[] = [
  { name: 'empty day', start: '2027-05-12', end: '2027-05-12' },
  { name: '1 day', start: '2026-05-12', end: '2026-05-12' },
  { name: '7 days', start: '2026-05-11', end: '2026-05-17' },
];

export const SMALL_TARGETS = ['minimal server', 'REST facade', 'GraphQL'] as const;
export type SmallTarget = (typeof SMALL_TARGETS)[number];

export interface SmallRow {
  range: string;
  target: SmallTarget;
  connections: number;
  entries: number;
  /** Median over the rounds of the serving process's CPU per request, ms. */
  cpuMs: number;
  /** The engine's process, likewise. */
  engineCpuMs: number;
  /** Requests a second over the window (wall). */
  rps: number;
  load: number;
}

/** A target's ratios to the minimal server round by round (windows minutes apart drift; windows of one round do not as much). */
export interface PairedRatios {
  range: string;
  connections: number;
  target: Exclude<SmallTarget, 'minimal server'>;
  /** CPU per request over the minimal server's, each round. */
  cpu: number[];
  /** Requests a second over the minimal server's, each round. */
  rps: number[];
}

export interface ColdRow {
  target: SmallTarget;
  /** CPU of the first request after `idleMs` without requests, ms (median over the repetitions). */
  firstCpuMs: number;
  /** Of the first three requests, per request. */
  firstThreeCpuMs: number;
  idleMs: number;
}

export interface SmallBenchResult {
  node: string;
  flights: number;
  rounds: number;
  rows: SmallRow[];
  paired: PairedRatios[];
  cold: ColdRow[];
  /** The md5 of the answers, by range (the facade's and the minimal server's are the same bytes). */
  md5: Record<string, string>;
  loadStart: number;
  loadEnd: number;
}

export interface SmallBenchOptions {
  flights?: number;
  rounds?: number;
  /** Wall time aimed at for one window, ms. */
  windowMs?: number;
  connections?: number[];
  ranges?: string[];
}

/** CPU time of every thread of a process so far, ms (the kernel's run time of each, in ns). */
export function processCpuMs(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read: its time is gone from the account too.
    }
  }
  return total / 1e6;
}

interface Answer {
  status: number;
  text: string;
}

function send(agent: Agent, port: number, method: string, requestPath: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: requestPath, headers: body ? { ...headers, 'content-length': Buffer.byteLength(body) } : headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Servers {
  engine: Child;
  service: Child;
  minimal: Child;
  servicePort: number;
  minimalPort: number;
  token: string;
}

interface Load {
  pid: number;
  port: number;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function loadOf(servers: Servers, target: SmallTarget, range: SmallRange): Load {
  const auth = { authorization: `Bearer ${servers.token}` };
  const search = `start=${range.start}&end=${range.end}`;
  if (target === 'minimal server') return { pid: servers.minimal.pid!, port: servers.minimalPort, method: 'GET', path: `${FACADE}?${search}`, headers: auth };
  if (target === 'REST facade') return { pid: servers.service.pid!, port: servers.servicePort, method: 'GET', path: `${FACADE}?${search}`, headers: auth };
  const body = JSON.stringify({ query: print(TimelineLegacyEventsDocument), variables: { view: 'CALENDAR', start: range.start, end: range.end } });
  return { pid: servers.service.pid!, port: servers.servicePort, method: 'POST', path: '/graphql', headers: { ...auth, 'content-type': 'application/json' }, body };
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** The entries of an answer as the facade's bytes: GraphQL's are its data's list. */
function entriesText(target: SmallTarget, text: string): string {
  return target === 'GraphQL' ? JSON.stringify((JSON.parse(text) as { data: { timelineEvents: unknown } }).data.timelineEvents) : text;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSmallRequestsBench(options: SmallBenchOptions = {}): Promise<SmallBenchResult> {
  const env = process.env;
  const flights = options.flights ?? Number(env.BENCH_SMALL_FLIGHTS ?? 5000);
  const rounds = options.rounds ?? Number(env.BENCH_SMALL_ROUNDS ?? 7);
  const windowMs = options.windowMs ?? Number(env.BENCH_SMALL_WINDOW_MS ?? 600);
  const connections = options.connections ?? (env.BENCH_SMALL_CONNECTIONS ?? '1,16').split(',').map(Number);
  const rangeNames = options.ranges ?? (env.BENCH_SMALL_RANGES ? env.BENCH_SMALL_RANGES.split(',').map((name) => name.trim()) : SMALL_RANGES.map((range) => range.name));
  const ranges = SMALL_RANGES.filter((range) => rangeNames.includes(range.name));
  const nodeFlags = serviceV8Flags();
  const result: SmallBenchResult = { node: process.version, flights, rounds, rows: [], paired: [], cold: [], md5: {}, loadStart: loadavg()[0], loadEnd: 0 };

  const children: Child[] = [];
  try {
    // The engine as `npm run db` runs it: a process of its own, on a free port.
    const engine = await startChild([...nodeFlags, require.resolve('@broker/embedded-mongo/cli'), '--port', '0'], env, /^(mongodb:\/\/\S+)\n/m, 'embedded engine');
    children.push(engine.child);
    const uri = `${engine.match[1]}/broker`;
    // The service (the benchmark's server: the real app, NODE_ENV=production, the service's V8 flags); it seeds the flights.
    const service = await startChild([...nodeFlags, '--expose-gc', ...PRELOAD, path.join(__dirname, `timeline-server${EXTENSION}`), String(flights)], { ...env, NODE_ENV: 'production', MONGODB_URI: uri }, /READY (.*)\n/, 'benchmark server');
    children.push(service.child);
    const ready = JSON.parse(service.match[1]) as { port: number; token: string };
    const minimal = await startChild([...nodeFlags, ...PRELOAD, path.join(__dirname, `minimal-server${EXTENSION}`)], { ...env, NODE_ENV: 'production', MONGODB_URI: uri, JWT_SECRET, PUBLIC_HOST }, /READY (.*)\n/, 'minimal server');
    children.push(minimal.child);
    const servers: Servers = { engine: engine.child, service: service.child, minimal: minimal.child, servicePort: ready.port, minimalPort: (JSON.parse(minimal.match[1]) as { port: number }).port, token: ready.token };
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const once = (load: Load) => send(agent, load.port, load.method, load.path, load.headers, load.body);

    // The same bytes, or nothing is measured.
    const entries = new Map<string, number>();
    for (const range of ranges) {
      const texts = new Map<SmallTarget, string>();
      for (const target of SMALL_TARGETS) {
        const answer = await once(loadOf(servers, target, range));
        if (answer.status !== 200) throw new Error(`${target}, ${range.name}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
        texts.set(target, entriesText(target, answer.text));
      }
      const sums = new Set([...texts.values()].map(md5));
      if (sums.size !== 1) throw new Error(`${range.name}: the answers differ (md5 ${[...texts].map(([target, text]) => `${target} ${md5(text)}`).join(', ')})`);
      result.md5[range.name] = md5(texts.get('REST facade')!);
      entries.set(range.name, (JSON.parse(texts.get('REST facade')!) as unknown[]).length);
    }

    // Cold: the first requests after the server sat idle (the one-day request).
    const day = ranges.find((range) => range.name === '1 day') ?? ranges[0];
    const idleMs = 5000;
    const cold = new Map<SmallTarget, { first: number[]; three: number[] }>(SMALL_TARGETS.map((target) => [target, { first: [], three: [] }]));
    for (let repetition = 0; repetition < 3; repetition += 1) {
      for (const target of SMALL_TARGETS) {
        const load = loadOf(servers, target, day);
        await sleep(idleMs);
        const before = processCpuMs(load.pid);
        await once(load);
        const afterFirst = processCpuMs(load.pid);
        await once(load);
        await once(load);
        const afterThree = processCpuMs(load.pid);
        cold.get(target)!.first.push(afterFirst - before);
        cold.get(target)!.three.push((afterThree - before) / 3);
      }
    }
    for (const [target, { first, three }] of cold) result.cold.push({ target, firstCpuMs: median(first), firstThreeCpuMs: median(three), idleMs });

    for (const range of ranges) {
      for (const connectionCount of connections) {
        // Requests a window sends, per target: about windowMs of wall time each (from a timed warm-up).
        const counts = new Map<SmallTarget, number>();
        for (const target of SMALL_TARGETS) {
          const load = loadOf(servers, target, range);
          const started = performance.now();
          for (let i = 0; i < 20; i += 1) await once(load);
          const perRequest = (performance.now() - started) / 20;
          counts.set(target, Math.max(20, Math.round((windowMs / perRequest) * (connectionCount > 1 ? 1.5 : 1))));
        }
        const samples = new Map<SmallTarget, Array<{ cpu: number; engine: number; rps: number; load: number }>>(SMALL_TARGETS.map((target) => [target, []]));
        for (let round = 0; round < rounds; round += 1) {
          // Every other round in the reverse order: no target is always measured first.
          for (const target of round % 2 === 0 ? SMALL_TARGETS : [...SMALL_TARGETS].reverse()) {
            const load = loadOf(servers, target, range);
            const count = counts.get(target)!;
            let sent: number;
            let started: number;
            let cpuBefore: number;
            let engineBefore: number;
            if (connectionCount === 1) {
              // Warm: a few unmeasured requests after the other targets' windows.
              for (let i = 0; i < 5; i += 1) await once(load);
              cpuBefore = processCpuMs(load.pid);
              engineBefore = processCpuMs(servers.engine.pid!);
              started = performance.now();
              for (let i = 0; i < count; i += 1) await once(load);
              sent = count;
            } else {
              // `connections` loops sending back to back, each on a keep-alive connection of its own.
              const concurrent = new Agent({ keepAlive: true, maxSockets: connectionCount });
              const burst = async (total: number) => {
                let next = 0;
                let refused = 0;
                const loop = async () => {
                  while (next < total) {
                    next += 1;
                    const answer = await send(concurrent, load.port, load.method, load.path, load.headers, load.body);
                    if (answer.status !== 200) refused += 1;
                  }
                };
                await Promise.all(Array.from({ length: connectionCount }, loop));
                if (refused) throw new Error(`${target}, ${range.name}, ${connectionCount} connections: ${refused} answers not 200`);
              };
              await burst(connectionCount * 2);
              cpuBefore = processCpuMs(load.pid);
              engineBefore = processCpuMs(servers.engine.pid!);
              started = performance.now();
              await burst(count);
              sent = count;
              concurrent.destroy();
            }
            const wall = performance.now() - started;
            samples.get(target)!.push({
              cpu: (processCpuMs(load.pid) - cpuBefore) / sent,
              engine: (processCpuMs(servers.engine.pid!) - engineBefore) / sent,
              rps: (sent * 1000) / wall,
              load: loadavg()[0],
            });
          }
        }
        for (const [target, list] of samples) {
          result.rows.push({
            range: range.name,
            target,
            connections: connectionCount,
            entries: entries.get(range.name)!,
            cpuMs: median(list.map((sample) => sample.cpu)),
            engineCpuMs: median(list.map((sample) => sample.engine)),
            rps: median(list.map((sample) => sample.rps)),
            load: median(list.map((sample) => sample.load)),
          });
        }
        const minimalSamples = samples.get('minimal server')!;
        for (const target of ['REST facade', 'GraphQL'] as const) {
          const list = samples.get(target)!;
          result.paired.push({
            range: range.name,
            connections: connectionCount,
            target,
            cpu: list.map((sample, round) => sample.cpu / minimalSamples[round].cpu),
            rps: list.map((sample, round) => sample.rps / minimalSamples[round].rps),
          });
        }
        process.stderr.write(`small requests: ${range.name}, ${connectionCount} connection(s) measured\n`);
      }
    }
    agent.destroy();
  } finally {
    for (const child of children.reverse()) child.kill('SIGKILL');
  }
  result.loadEnd = loadavg()[0];
  return result;
}

const ms = (value: number) => (value >= 10 ? value.toFixed(1) : value.toFixed(2));

export function formatSmallRequestsBench(result: SmallBenchResult): string {
  const lines = [
    `Small requests against a minimal server (issue 28), Node ${result.node}, ${result.flights} flights; engine in its own process; CPU of the serving process per request (all its threads, /proc schedstat), medians of ${result.rounds} rounds, warm; load average ${result.loadStart.toFixed(1)} at the start, ${result.loadEnd.toFixed(1)} at the end (2 cores).`,
    '',
    '| Range | Entries | Connections | Minimal server | REST facade | × minimal | GraphQL | × minimal | Requests/s minimal | facade | × | GraphQL | × | Engine CPU / request (minimal, facade, GraphQL) | Load |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const keys = [...new Set(result.rows.map((row) => `${row.range}\n${row.connections}`))];
  for (const key of keys) {
    const [range, connections] = key.split('\n');
    const of = (target: SmallTarget) => result.rows.find((row) => row.range === range && String(row.connections) === connections && row.target === target)!;
    const minimal = of('minimal server');
    const facade = of('REST facade');
    const graphql = of('GraphQL');
    lines.push(
      `| ${range} | ${minimal.entries} | ${connections} | ${ms(minimal.cpuMs)} ms | ${ms(facade.cpuMs)} ms | ${(facade.cpuMs / minimal.cpuMs).toFixed(2)} | ${ms(graphql.cpuMs)} ms | ${(graphql.cpuMs / minimal.cpuMs).toFixed(2)} | ${minimal.rps.toFixed(0)} | ${facade.rps.toFixed(0)} | ${(facade.rps / minimal.rps).toFixed(2)} | ${graphql.rps.toFixed(0)} | ${(graphql.rps / minimal.rps).toFixed(2)} | ${ms(minimal.engineCpuMs)}, ${ms(facade.engineCpuMs)}, ${ms(graphql.engineCpuMs)} ms | ${minimal.load.toFixed(1)} |`,
    );
  }
  if (result.paired.length) {
    lines.push('', 'Round by round (each round takes the three targets minutes apart at most, so the machine\'s drift hits them alike): the ratio to the minimal server of the same round, median and each round.', '');
    const list = (values: number[]) => values.map((value) => value.toFixed(2)).join(', ');
    for (const paired of result.paired) {
      lines.push(`- ${paired.range}, ${paired.connections} connection${paired.connections > 1 ? 's' : ''}, ${paired.target}: CPU × **${median(paired.cpu).toFixed(2)}** (${list(paired.cpu)}); throughput × **${median(paired.rps).toFixed(2)}** (${list(paired.rps)})`);
    }
  }
  if (result.cold.length) {
    lines.push('', `Cold: the one-day request after ${result.cold[0].idleMs / 1000} s without requests (medians of 3):`, '', '| Target | First request CPU | First three, per request | × warm (one connection) |', '|---|---|---|---|');
    for (const cold of result.cold) {
      const warm = result.rows.find((row) => row.range === '1 day' && row.connections === 1 && row.target === cold.target);
      lines.push(`| ${cold.target} | ${ms(cold.firstCpuMs)} ms | ${ms(cold.firstThreeCpuMs)} ms | ${warm ? (cold.firstCpuMs / warm.cpuMs).toFixed(1) : '—'} |`);
    }
  }
  lines.push('', `Answers identical (md5 of the facade's, the minimal server's and GraphQL's entries): ${Object.entries(result.md5).map(([range, sum]) => `${range} ${sum}`).join(', ')}.`);
  return lines.join('\n');
}

if (require.main === module) {
  runSmallRequestsBench()
    .then((result) => console.log(formatSmallRequestsBench(result)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
