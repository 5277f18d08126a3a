/**
 * Scaling to 20,000 flights (issue 28): the service alone, its embedded engine in a process of its
 * own (as `npm run db` runs it, standing in for a real MongoDB), CPU of the serving process only.
 *
 * 1. Linear: the 31-day timeline (every flight of May 2026) at 5,000 and 20,000 flights, through
 *    POST /graphql and the REST facade, one request at a time. Each round takes both datasets and
 *    both targets in turn (a full collection, a few requests unmeasured, then a window), so drift
 *    on a shared machine hits them alike; the figure is the ratio of the medians of CPU per entry.
 * 2. Concurrency at 20,000 flights: the 31-day facade and GraphQL requests one at a time against 16
 *    connections at once, windows alternating in each round: CPU per request, wall time of each
 *    request (how many took over 5 s), peak RSS of the serving process (sampled every 20 ms).
 * 3. The same in a steady state (`BENCH_SCALE_STEADY=<seconds>`, off by default), on servers of
 *    its own that no collection is ever forced on (as in production): each phase sends requests
 *    back to back for that long, one connection then 16 (the other way round every other round),
 *    so full collections fall where the load puts them. Parts 1 and 2 settle the heap before every
 *    window, which spares each window what the windows before it promoted, and the forced
 *    collections leave V8's heap limits lower than a production process has them
 *    (bench/README.md, "Session 17").
 *
 * The servers are bench/timeline-server.ts (the real app plus the measuring routes), each with its
 * own engine process and dataset, started with GRAPHQL_TIMEOUT_MS raised so that every request is
 * measured to its end. `BENCH_SCALE_ROUNDS` (default 5) and `BENCH_SCALE_CONCURRENT=0` (skip part 2)
 * focus a run; `BENCH_SCALE_WINDOW` (a multiple of 16, default 16) sets part 2's requests per
 * window (more: each window nearer a steady state, less noise per round, a longer run);
 * `BENCH_NODE_FLAGS` as for the timeline benchmark; `BENCH_SCALE_COMPARE=<directory>` (another
 * checkout, with its node_modules) adds that code's servers to every round, labelled "before", to
 * measure a change against what it replaces in the same minutes. `BENCH_SCALE_SERVER_ENV` (a JSON
 * object of variables) configures every server, `BENCH_SCALE_COMPARE_ENV` the "before" ones
 * on top (with BENCH_SCALE_COMPARE set to this tree: the same code under two settings), and
 * `BENCH_SCALE_COMPARE_FLAGS` their V8 flags instead of the service's (the same code under two sets
 * of flags). Every server runs as docs/performance.md tells a service of its dataset's density to
 * be configured (GRAPHQL_COST_FLIGHTS_PER_DAY, GRAPHQL_MAX_COST).
 */
import { loadavg } from 'node:os';
import { Agent, request } from 'node:http';
import path from 'node:path';
import { print } from 'graphql';
import { TimelineEventsDocument } from '../src/graphql/generated/operations';
import { EXTENSION, PRELOAD, serviceV8Flags, startChild, type Child } from './child-process';
import { median, type WindowFigures } from './timeline-measure';

interface Server {
  /** Which code it runs: this tree's, or the one BENCH_SCALE_COMPARE names ("before"). */
  code: string;
  flights: number;
  port: number;
  token: string;
  child: Child;
  engine: Child;
}

interface Target {
  name: 'GraphQL POST /graphql' | 'REST facade GET';
  method: 'GET' | 'POST';
  path: string;
  headers: (token: string) => Record<string, string>;
  body?: string;
}

const MONTH = { start: '2026-05-01', end: '2026-05-31' };
const TARGETS: Target[] = [
  {
    name: 'GraphQL POST /graphql',
    method: 'POST',
    path: '/graphql',
    headers: (token) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' }),
    body: JSON.stringify({ query: print(TimelineEventsDocument), variables: { view: 'CALENDAR', ...MONTH } }),
  },
  {
    name: 'REST facade GET',
    method: 'GET',
    path: `/api/broker/v0/calendar/timeline/event?start=${MONTH.start}&end=${MONTH.end}`,
    headers: (token) => ({ authorization: `Bearer ${token}` }),
  },
];


/** Settings (a JSON object of variables) an environment variable of the benchmark gives its servers. */
function settingsFrom(name: string): Record<string, string> {
  return JSON.parse(process.env[name] ?? '{}') as Record<string, string>;
}

async function startServer(flights: number, flags: string[], code = 'this tree', root = path.join(__dirname, '..'), env: Record<string, string> = {}): Promise<Server> {
  // This tree's engine (the @broker/embedded-mongo package) for either tree's service.
  const engine = await startChild([...flags, require.resolve('@broker/embedded-mongo/cli'), '--port', '0'], process.env, /^(mongodb:\/\/\S+)\n/m, 'embedded engine');
  try {
    const script = path.join(root, `bench/timeline-server${EXTENSION}`);
    // Every request measured to its end: on a loaded machine a 20,000-entry request under 16
    // connections outlasts the default 5 s execution limit, and a stopped request costs less.
    // Configured as docs/performance.md ("Where the estimate misleads") tells a service of this
    // density: its flights a day for the cost estimate, so that a month's read counts as large and
    // takes its turn (TIMELINE_LARGE_READS_MAX), and a cost limit that lets a month through.
    const density = { GRAPHQL_COST_FLIGHTS_PER_DAY: String(Math.ceil(flights / 31)), GRAPHQL_MAX_COST: '100000000' };
    const serverEnv = { GRAPHQL_TIMEOUT_MS: '120000', DB_OPERATION_TIMEOUT_MS: '120000', ...density, ...settingsFrom('BENCH_SCALE_SERVER_ENV'), ...env };
    const { child, match } = await startChild(
      [...flags, '--expose-gc', ...PRELOAD, script, String(flights)],
      { ...process.env, NODE_ENV: 'production', MONGODB_URI: `${engine.match[1]}/broker`, BENCH_SERVER_ENV: JSON.stringify(serverEnv) },
      /READY (.*)\n/,
      'benchmark server',
    );
    const ready = JSON.parse(match[1]) as { port: number; token: string };
    return { code, flights, ...ready, child, engine: engine.child };
  } catch (error) {
    engine.child.kill('SIGKILL');
    throw error;
  }
}

interface Answer {
  status: number;
  bytes: number;
  text: string;
  ms: number;
}

async function send(agent: Agent, port: number, method: string, requestPath: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  try {
    return await sendOnce(agent, port, method, requestPath, headers, body);
  } catch (error) {
    // The server closed an idle keep-alive connection just as it was reused (Node's documented race): once more.
    if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') throw error;
    return sendOnce(agent, port, method, requestPath, headers, body);
  }
}

function sendOnce(agent: Agent, port: number, method: string, requestPath: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: requestPath, agent, headers: body ? { ...headers, 'content-length': Buffer.byteLength(body) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, bytes: raw.length, text: raw.toString('utf8'), ms: performance.now() - started });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const control = new Agent({ keepAlive: true, maxSockets: 1 });

function sendTarget(agent: Agent, server: Server, target: Target): Promise<Answer> {
  return send(agent, server.port, target.method, target.path, target.headers(server.token), target.body);
}

/** `connections` loops, each sending `target` back to back while `more(requests it has sent)` holds; every answer. */
async function backToBack(agent: Agent, server: Server, target: Target, connections: number, more: (sent: number) => boolean): Promise<Answer[]> {
  const lists = await Promise.all(
    Array.from({ length: connections }, async () => {
      const list: Answer[] = [];
      while (more(list.length)) list.push(await sendTarget(agent, server, target));
      return list;
    }),
  );
  return lists.flat();
}

/** A settled heap, `warmUp` requests unmeasured, then `work` in a measured window. */
async function measure<T>(server: Server, warmUp: () => Promise<unknown>, work: () => Promise<T>, sampleRss = false): Promise<{ figures: WindowFigures; result: T }> {
  await send(control, server.port, 'POST', '/bench/settle');
  await warmUp();
  await send(control, server.port, 'POST', `/bench/window/start?settled=1${sampleRss ? '&rss=1' : ''}`);
  const result = await work();
  const stopped = await send(control, server.port, 'POST', '/bench/window/stop');
  return { figures: JSON.parse(stopped.text) as WindowFigures, result };
}

export interface LinearRow {
  code: string;
  flights: number;
  target: string;
  entries: number;
  cpuMsPerRequest: number;
  cpuUsPerEntry: number;
  allocatedMiBPerRequest: number;
  scavenges: number;
  markCompacts: number;
  load: number;
}

/** One code and target under one number of connections (parts 2 and 3). */
interface LoadRow {
  code: string;
  target: string;
  connections: number;
  /** Part 2: requests per window; part 3: requests answered in all its phases together. */
  requests: number;
  cpuMsPerRequest: number;
  /** The main thread's share of it (undefined where the thread's CPU cannot be read). */
  mainThreadMsPerRequest?: number;
  peakRssMiB: number;
  load: number;
}

export interface ConcurrencyRow extends LoadRow {
  wallP50Ms: number;
  wallMaxMs: number;
  over5s: number;
  notOk: number;
}

export interface SteadyRow extends LoadRow {
  /** Full collections per 16 requests. */
  markCompactsPer16: number;
}

export interface ScaleBenchResult {
  node: string;
  flags: string[];
  /** The "before" servers' V8 flags, where BENCH_SCALE_COMPARE_FLAGS gave others. */
  compareFlags?: string[];
  rounds: number;
  /** Part 2's requests per window (BENCH_SCALE_WINDOW). */
  windowRequests: number;
  linear: LinearRow[];
  concurrency: ConcurrencyRow[];
  /** Part 3's seconds per phase (BENCH_SCALE_STEADY; 0: not run). */
  steadySeconds: number;
  steady: SteadyRow[];
  steadyRatios: Record<string, number[]>;
  /** Every ratio per round, so the spread is visible beside the ratio of medians. */
  linearRatios: Record<string, number[]>;
  concurrencyRatios: Record<string, number[]>;
  loads: number[];
}

function entriesOf(text: string): number {
  const parsed = JSON.parse(text) as unknown[] | { data: { timelineEvents: unknown[] } };
  return Array.isArray(parsed) ? parsed.length : parsed.data.timelineEvents.length;
}

export async function runTimelineScaleBench(): Promise<ScaleBenchResult> {
  const rounds = Number(process.env.BENCH_SCALE_ROUNDS ?? 5);
  const concurrent = process.env.BENCH_SCALE_CONCURRENT !== '0';
  const windowRequests = Number(process.env.BENCH_SCALE_WINDOW ?? 16);
  if (!Number.isInteger(windowRequests) || windowRequests < 16 || windowRequests % 16 !== 0) throw new Error(`BENCH_SCALE_WINDOW must be a multiple of 16, not ${process.env.BENCH_SCALE_WINDOW}`);
  const steadySeconds = Number(process.env.BENCH_SCALE_STEADY ?? 0);
  if (!Number.isFinite(steadySeconds) || steadySeconds < 0) throw new Error(`BENCH_SCALE_STEADY must be a number of seconds, not ${process.env.BENCH_SCALE_STEADY}`);
  const flags = serviceV8Flags();
  const result: ScaleBenchResult = { node: process.version, flags, rounds, windowRequests, linear: [], concurrency: [], steadySeconds, steady: [], linearRatios: {}, concurrencyRatios: {}, steadyRatios: {}, loads: [] };
  const servers: Server[] = [];
  // Part 3's servers: fresh, and never a forced collection.
  const steadyServers: Server[] = [];
  const one = new Agent({ keepAlive: true, maxSockets: 1 });
  const many = new Agent({ keepAlive: true, maxSockets: 16 });
  try {
    servers.push(await startServer(5000, flags), await startServer(20000, flags));
    // BENCH_SCALE_COMPARE=<a checkout of other code, with node_modules>: its servers too, every round
    // taking both codes in turn, so a change is measured against what it replaces in the same minutes.
    const compare = process.env.BENCH_SCALE_COMPARE;
    const compareEnv = settingsFrom('BENCH_SCALE_COMPARE_ENV');
    const compareFlags = process.env.BENCH_SCALE_COMPARE_FLAGS?.split(/\s+/).filter(Boolean) ?? flags;
    if (compare && compareFlags !== flags) result.compareFlags = compareFlags;
    if (compare) servers.push(await startServer(5000, compareFlags, 'before', compare, compareEnv), await startServer(20000, compareFlags, 'before', compare, compareEnv));
    if (steadySeconds > 0) steadyServers.push(await startServer(20000, flags));
    if (steadySeconds > 0 && compare) steadyServers.push(await startServer(20000, compareFlags, 'before', compare, compareEnv));
    const entries = new Map<string, number>();
    for (const server of servers) {
      for (const target of TARGETS) {
        for (let i = 0; i < 3; i += 1) {
          const answer = await sendTarget(one, server, target);
          if (answer.status !== 200) throw new Error(`${target.name} at ${server.flights} flights: ${answer.status} ${answer.text.slice(0, 300)}`);
          entries.set(`${server.code}|${server.flights}|${target.name}`, entriesOf(answer.text));
        }
      }
    }
    // Part 1: requests per window sized so both datasets' windows read about the same entries.
    const perWindow = (flights: number) => (flights === 5000 ? 8 : 2);
    const linear = new Map<string, WindowFigures[]>();
    // Part 3's servers warmed up (compiled code, grown young generation) as the others were above.
    for (const server of steadyServers) for (const target of TARGETS) for (let i = 0; i < 3; i += 1) await sendTarget(one, server, target);
    const larges = servers.filter((server) => server.flights === 20000);
    const concurrency = new Map<string, { figures: WindowFigures; answers: Answer[] }[]>();
    const steady = new Map<string, { figures: WindowFigures; requests: number }[]>();
    for (let round = 0; round < rounds; round += 1) {
      // Every other round in the reverse order: no server is always measured first.
      for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
        for (const target of TARGETS) {
          const n = perWindow(server.flights);
          const { figures } = await measure(
            server,
            async () => {
              for (let i = 0; i < Math.max(2, n / 2); i += 1) await sendTarget(one, server, target);
            },
            async () => {
              for (let i = 0; i < n; i += 1) await sendTarget(one, server, target);
            },
          );
          const key = `${server.code}|${server.flights}|${target.name}`;
          linear.set(key, [...(linear.get(key) ?? []), { ...figures, cpuMs: figures.cpuMs / n, allocatedBytes: figures.allocatedBytes / n, scavenges: figures.scavenges / n, markCompacts: figures.markCompacts / n }]);
        }
      }
      for (const large of concurrent ? larges : []) {
        // Part 2: `windowRequests` requests one at a time, then as many over 16 connections (16 loops,
        // each sending its share back to back), and the other way round every other round.
        for (const target of TARGETS) {
          const order = round % 2 === 0 ? [1, 16] : [16, 1];
          for (const connections of order) {
            const agent = connections === 1 ? one : many;
            const { figures, result: answers } = await measure(
              large,
              async () => {
                for (let i = 0; i < 2; i += 1) await sendTarget(one, large, target);
              },
              () => backToBack(agent, large, target, connections, (sent) => sent < windowRequests / connections),
              true,
            );
            const key = `${large.code}|${target.name}|${connections}`;
            concurrency.set(key, [...(concurrency.get(key) ?? []), { figures, answers }]);
          }
        }
      }
      for (const large of steadyServers) {
        // Part 3: back to back for `steadySeconds`, one connection then 16, no collection forced.
        for (const target of TARGETS) {
          for (const connections of round % 2 === 0 ? [1, 16] : [16, 1]) {
            const agent = connections === 1 ? one : many;
            await send(control, large.port, 'POST', '/bench/window/start?steady=1&rss=1');
            const until = performance.now() + steadySeconds * 1000;
            const answers = await backToBack(agent, large, target, connections, () => performance.now() < until);
            const figures = JSON.parse((await send(control, large.port, 'POST', '/bench/window/stop?steady=1')).text) as WindowFigures;
            const failed = answers.find((answer) => answer.status !== 200);
            if (failed) throw new Error(`${target.name} under ${connections} connections: ${failed.status} ${failed.text.slice(0, 300)}`);
            const key = `${large.code}|${target.name}|${connections}`;
            steady.set(key, [...(steady.get(key) ?? []), { figures, requests: answers.length }]);
          }
        }
      }
      result.loads.push(loadavg()[0]);
      process.stderr.write(`timeline-scale: round ${round + 1} of ${rounds} done, load ${loadavg()[0].toFixed(1)}\n`);
    }
    for (const [key, list] of linear) {
      const [code, flights, target] = key.split('|');
      const count = entries.get(key)!;
      const cpu = median(list.map((figure) => figure.cpuMs));
      result.linear.push({
        code,
        flights: Number(flights),
        target,
        entries: count,
        cpuMsPerRequest: cpu,
        cpuUsPerEntry: (cpu * 1000) / count,
        allocatedMiBPerRequest: median(list.map((figure) => figure.allocatedBytes)) / 1024 / 1024,
        scavenges: median(list.map((figure) => figure.scavenges)),
        markCompacts: median(list.map((figure) => figure.markCompacts)),
        load: median(list.map((figure) => figure.load)),
      });
    }
    for (const code of new Set(servers.map((server) => server.code))) {
      for (const target of TARGETS) {
        const small = linear.get(`${code}|5000|${target.name}`)!;
        const big = linear.get(`${code}|20000|${target.name}`)!;
        const per = (flights: number) => entries.get(`${code}|${flights}|${target.name}`)!;
        result.linearRatios[`${code}|${target.name}`] = small.map((figure, i) => big[i].cpuMs / per(20000) / (figure.cpuMs / per(5000)));
      }
    }
    for (const [key, list] of concurrency) {
      const [code, target, connections] = key.split('|');
      const walls = list.flatMap(({ answers }) => answers.map((answer) => answer.ms));
      result.concurrency.push({
        code,
        target,
        connections: Number(connections),
        requests: windowRequests,
        cpuMsPerRequest: median(list.map(({ figures }) => figures.cpuMs / windowRequests)),
        mainThreadMsPerRequest: list.every(({ figures }) => figures.mainThreadCpuMs !== undefined) ? median(list.map(({ figures }) => figures.mainThreadCpuMs! / windowRequests)) : undefined,
        wallP50Ms: median(walls),
        wallMaxMs: Math.max(...walls),
        over5s: (walls.filter((ms) => ms > 5000).length / list.length) * (16 / windowRequests),
        notOk: list.flatMap(({ answers }) => answers.filter((answer) => answer.status !== 200)).length,
        peakRssMiB: Math.max(...list.map(({ figures }) => figures.peakRssBytes)) / 1024 / 1024,
        load: median(list.map(({ figures }) => figures.load)),
      });
      const alone = concurrency.get(`${code}|${target}|1`);
      if (connections === '16' && alone) result.concurrencyRatios[`${code}|${target}`] = alone.map(({ figures }, i) => list[i].figures.cpuMs / figures.cpuMs);
    }
    for (const [key, phases] of steady) {
      const [code, target, connections] = key.split('|');
      const requests = phases.reduce((sum, phase) => sum + phase.requests, 0);
      result.steady.push({
        code,
        target,
        connections: Number(connections),
        requests,
        cpuMsPerRequest: median(phases.map(({ figures, requests: n }) => figures.cpuMs / n)),
        mainThreadMsPerRequest: phases.every(({ figures }) => figures.mainThreadCpuMs !== undefined) ? median(phases.map(({ figures, requests: n }) => figures.mainThreadCpuMs! / n)) : undefined,
        markCompactsPer16: (phases.reduce((sum, { figures }) => sum + figures.markCompacts, 0) / requests) * 16,
        peakRssMiB: Math.max(...phases.map(({ figures }) => figures.peakRssBytes)) / 1024 / 1024,
        load: median(phases.map(({ figures }) => figures.load)),
      });
      const alone = steady.get(`${code}|${target}|1`);
      if (connections === '16' && alone) result.steadyRatios[`${code}|${target}`] = alone.map((phase, i) => phases[i].figures.cpuMs / phases[i].requests / (phase.figures.cpuMs / phase.requests));
    }
  } finally {
    for (const server of [...servers, ...steadyServers]) {
      server.child.kill('SIGKILL');
      server.engine.kill('SIGKILL');
    }
    one.destroy();
    many.destroy();
    control.destroy();
  }
  return result;
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** Per code and target: CPU per request with 16 connections over one at a time, each round's own ratio beside it. */
function ratioLines(rows: LoadRow[], ratios: Record<string, number[]>, label: string, each: string): string[] {
  const lines: string[] = [];
  for (const row of rows.filter((candidate) => candidate.connections === 16)) {
    const alone = rows.find((candidate) => candidate.code === row.code && candidate.target === row.target && candidate.connections === 1);
    if (!alone) continue;
    const rounds = ratios[`${row.code}|${row.target}`] ?? [];
    const mainThread = row.mainThreadMsPerRequest !== undefined && alone.mainThreadMsPerRequest !== undefined ? `; the main thread alone ${fixed(row.mainThreadMsPerRequest / alone.mainThreadMsPerRequest)}` : '';
    lines.push(`- ${row.code}, ${row.target}${label}: CPU per request with 16 connections / one at a time = **${fixed(row.cpuMsPerRequest / alone.cpuMsPerRequest)}** (target ≤ 1.1; ${each} ${rounds.map((ratio) => fixed(ratio)).join(', ')}${mainThread})`);
  }
  return lines;
}

export function formatTimelineScaleBench(result: ScaleBenchResult): string {
  const lines = [
    `Scaling to 20,000 flights (issue 28), Node ${result.node} ${result.flags.join(' ')}${result.compareFlags ? ` ("before": ${result.compareFlags.join(' ')})` : ''}; the embedded engine in a process of its own; CPU of the serving process; medians of ${result.rounds} rounds; ${result.windowRequests} requests per concurrency window; load (one-minute average, 2 cores) ${fixed(Math.min(...result.loads), 1)} to ${fixed(Math.max(...result.loads), 1)}.`,
    '',
    '| Code | Flights | Target (31 days) | Entries | CPU / request | CPU / entry | Allocated / request | Scavenges / request | Full collections / request | Load |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of result.linear) {
    lines.push(`| ${row.code} | ${row.flights} | ${row.target} | ${row.entries} | ${fixed(row.cpuMsPerRequest, 1)} ms | ${fixed(row.cpuUsPerEntry)} µs | ${fixed(row.allocatedMiBPerRequest, 1)} MiB | ${fixed(row.scavenges, 1)} | ${fixed(row.markCompacts, 2)} | ${fixed(row.load, 1)} |`);
  }
  lines.push('');
  for (const code of new Set(result.linear.map((row) => row.code))) {
    for (const target of TARGETS) {
      const small = result.linear.find((row) => row.code === code && row.flights === 5000 && row.target === target.name);
      const big = result.linear.find((row) => row.code === code && row.flights === 20000 && row.target === target.name);
      if (!small || !big) continue;
      const ratios = result.linearRatios[`${code}|${target.name}`] ?? [];
      lines.push(`- ${code}, ${target.name}: CPU per entry at 20,000 / at 5,000 = **${fixed(big.cpuUsPerEntry / small.cpuUsPerEntry)}** (target ≤ 1.2; round by round ${ratios.map((ratio) => fixed(ratio)).join(', ')})`);
    }
  }
  if (result.concurrency.length) {
    lines.push(
      '',
      '| Code | Target (31 days, 20,000 flights) | Connections | CPU / request | of which the main thread | Wall per request, median | Slowest | Over 5 s per 16 | Not 200 | Peak RSS | Load |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const row of result.concurrency) {
      lines.push(`| ${row.code} | ${row.target} | ${row.connections} | ${fixed(row.cpuMsPerRequest, 0)} ms | ${row.mainThreadMsPerRequest === undefined ? '—' : `${fixed(row.mainThreadMsPerRequest, 0)} ms`} | ${fixed(row.wallP50Ms, 0)} ms | ${fixed(row.wallMaxMs, 0)} ms | ${fixed(row.over5s, 1)} | ${row.notOk} | ${fixed(row.peakRssMiB, 0)} MiB | ${fixed(row.load, 1)} |`);
    }
    lines.push('', ...ratioLines(result.concurrency, result.concurrencyRatios, '', 'round by round'));
  }
  if (result.steady.length) {
    lines.push(
      '',
      `Steady state: ${result.steadySeconds} s per phase, requests back to back, on a server of its own that no collection is ever forced on.`,
      '',
      '| Code | Target (31 days, 20,000 flights) | Connections | Requests | CPU / request | of which the main thread | Full collections per 16 requests | Peak RSS | Load |',
      '|---|---|---|---|---|---|---|---|---|',
    );
    for (const row of result.steady) {
      lines.push(`| ${row.code} | ${row.target} | ${row.connections} | ${row.requests} | ${fixed(row.cpuMsPerRequest, 0)} ms | ${row.mainThreadMsPerRequest === undefined ? '—' : `${fixed(row.mainThreadMsPerRequest, 0)} ms`} | ${fixed(row.markCompactsPer16)} | ${fixed(row.peakRssMiB, 0)} MiB | ${fixed(row.load, 1)} |`);
    }
    lines.push('', ...ratioLines(result.steady, result.steadyRatios, ', steady', 'phase by phase'));
  }
  return lines.join('\n');
}

if (require.main === module) {
  runTimelineScaleBench()
    .then((result) => console.log(formatTimelineScaleBench(result)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
