/**
 * The timeline data path against its physical limit (issue 14). For 5,000 and 20,000 flights in May
 * 2026 (100-passenger lists) and for 1, 7 and 31 days, side by side: the limit (BSON serialise and
 * deserialise of exactly the documents the request reads, plus JSON.stringify of the answer), the
 * service with a bare Express route (the floor), GraphQL and the REST facade. The server runs in a
 * child process (bench/timeline-server.ts) so its CPU account holds its own work only; requests go
 * one at a time and the server reports the CPU and the V8 allocation of each window of requests
 * (bench/timeline-measure.ts). The servers of every dataset run at once and each round takes every
 * dataset and target in turn, so drift on a shared machine hits all alike, 5,000 and 20,000 flights
 * included (the per-entry ratio between them compares the same moments); figures are medians over
 * the rounds, with the machine's load average beside them. Besides the server with the embedded
 * engine in its process (the issue's definition: the engine's work is in the figures), each dataset
 * has one whose engine runs in a process of its own, as a real MongoDB would: its rows give the
 * service's CPU alone, and the engine's beside it. Then autocannon sends the 31-day facade request
 * over several connections at once (a fixed number per connection): latency, server CPU per request
 * and peak RSS under concurrency.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import path from 'node:path';
import autocannon from 'autocannon';
import { print } from 'graphql';
import { TimelineEventsDocument } from '../src/graphql/generated/operations';
import { EXTENSION, PRELOAD, serviceV8Flags, startChild, type Child } from './child-process';
import { median, type LimitFigures, type WindowFigures } from './timeline-measure';

export interface TimelineBenchOptions {
  /** Dataset sizes (flights in May 2026). */
  flights?: number[];
  rounds?: number;
  /** Target wall time of one round of one target, ms (at least 3 requests). */
  roundMs?: number;
  /** Connections of the concurrent runs (none to skip them). */
  connections?: number[];
  /** Requests each connection sends in a concurrent run. */
  requestsPerConnection?: number;
  /** V8 flags of the server process; by default the service's own (scripts/v8-flags.json), as `npm start` runs it. */
  nodeFlags?: string[];
  /** Only these ranges (names of BENCH_RANGES); all by default. */
  ranges?: string[];
  /**
   * Also measure the service with the engine in a process of its own (its CPU then is the service's
   * alone, as against a real MongoDB). On by default; off when MONGODB_URI names a real server (the
   * servers' figures are then the service's alone already).
   */
  serviceAlone?: boolean;
}

/** Where the database runs for a target: the embedded engine in a worker thread of the server's process (as `npm start` runs it), or in a process of its own. */
export type EngineKind = 'worker thread' | 'own process';

export interface RangeSpec {
  name: string;
  start: string;
  end: string;
}

export const BENCH_RANGES: RangeSpec[] = [
  // A day without flights: what a request costs before it reads any entry (token, GraphQL, one
  // round trip, HTTP), to tell the one-day request's fixed cost from what its entries cost.
  { name: 'empty day', start: '2027-05-12', end: '2027-05-12' },
  { name: '1 day', start: '2026-05-12', end: '2026-05-12' },
  { name: '7 days', start: '2026-05-11', end: '2026-05-17' },
  { name: '31 days', start: '2026-05-01', end: '2026-05-31' },
];

export interface TargetRow {
  flights: number;
  range: string;
  target: string;
  entries: number;
  /** Bytes of the answer as sent (compressed when the target asks for it). */
  bodyBytes: number;
  cpuMs: number;
  allocatedBytes: number;
  scavenges: number;
  gcMs: number;
  /** Kept past young collections per request (WindowFigures.keptBytes), when measured. */
  keptBytes?: number;
  /** CPU of the engine's own process per request (targets whose engine runs apart; Linux /proc). */
  engineCpuMs?: number;
  wallMs: number;
  load: number;
}

export interface LoadRow {
  flights: number;
  range: string;
  target: string;
  connections: number;
  p50Ms: number;
  p99Ms: number;
  rps: number;
  cpuMsPerRequest: number;
  engineCpuMsPerRequest?: number;
  allocatedBytesPerRequest: number;
  peakRssBytes: number;
  peakYoungBytes: number;
  load: number;
  /** Requests not answered 200 (time limits under load) or failed. */
  refused: number;
}

/**
 * The limit of one request: `issue` over the documents issue 14 counted (the flights, one passenger
 * count document per flight, the airports and resources: the request as it read them then);
 * `joined` over what the request reads now (each flight with its count joined, the airports and
 * resources), a lower bar.
 */
export interface LimitRow extends LimitFigures {
  flights: number;
  range: string;
  design: 'issue' | 'joined';
}

export interface TimelineBenchResult {
  node: string;
  nodeFlags: string[];
  rounds: number;
  rows: TargetRow[];
  limits: LimitRow[];
  loadRows: LoadRow[];
}

interface Target {
  name: string;
  method: 'GET' | 'POST';
  path: (range: RangeSpec) => string;
  headers?: Record<string, string>;
  body?: (range: RangeSpec) => string;
  /** Only for these ranges (all when absent). */
  ranges?: string[];
  /** The server it is sent to: by default the one with the engine in its process. */
  engine?: EngineKind;
}

const FACADE = '/api/broker/v0/calendar/timeline/event';
/** The facade request against the server whose engine runs in a process of its own: the service's CPU alone. */
export const SERVICE_ALONE_TARGET = 'REST facade GET, engine in its own process (service CPU)';
const query = (range: RangeSpec) => `start=${range.start}&end=${range.end}`;

function targets(token: string): Target[] {
  const auth = { authorization: `Bearer ${token}` };
  const graphqlBody = (range: RangeSpec) => JSON.stringify({ query: print(TimelineEventsDocument), variables: { view: 'CALENDAR', start: range.start, end: range.end } });
  return [
    { name: 'floor: service + JSON, bare Express', method: 'GET', path: (range) => `/bench/floor?${query(range)}` },
    { name: 'GraphQL POST /graphql', method: 'POST', path: () => '/graphql', headers: { ...auth, 'content-type': 'application/json' }, body: graphqlBody },
    { name: 'REST facade GET', method: 'GET', path: (range) => `${FACADE}?${query(range)}`, headers: auth },
    { name: 'REST facade GET, Accept-Encoding: gzip', method: 'GET', path: (range) => `${FACADE}?${query(range)}`, headers: { ...auth, 'accept-encoding': 'gzip' }, ranges: ['1 day', '31 days'] },
    { name: 'REST facade GET, Accept-Encoding: br', method: 'GET', path: (range) => `${FACADE}?${query(range)}`, headers: { ...auth, 'accept-encoding': 'br' }, ranges: ['31 days'] },
    { name: SERVICE_ALONE_TARGET, method: 'GET', path: (range) => `${FACADE}?${query(range)}`, headers: auth, engine: 'own process' },
  ];
}

interface Server {
  flights: number;
  engine: EngineKind;
  port: number;
  token: string;
  child: Child;
  /** The engine's own process, when it runs apart. */
  engineProcess?: Child;
}


async function startServer(flights: number, engine: EngineKind, nodeFlags: string[]): Promise<Server> {
  let engineProcess: Child | undefined;
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
  if (engine === 'own process') {
    // The engine as `npm run db` runs it (its own process, the service's V8 flags), on a free port.
    const cli = require.resolve('@broker/embedded-mongo/cli');
    const started = await startChild([...nodeFlags, cli, '--port', '0'], process.env, /^(mongodb:\/\/\S+)\n/m, 'embedded engine');
    engineProcess = started.child;
    env.MONGODB_URI = `${started.match[1]}/broker`;
  }
  const script = path.join(__dirname, `timeline-server${EXTENSION}`);
  try {
    // NODE_ENV=production as deployed: graphql-js, express and others drop their development checks.
    const { child, match } = await startChild([...nodeFlags, '--expose-gc', ...PRELOAD, script, String(flights)], env, /READY (.*)\n/, 'benchmark server');
    const ready = JSON.parse(match[1]) as { port: number; token: string };
    return { flights, engine, ...ready, child, engineProcess };
  } catch (error) {
    // The caller only stops the servers it got: the engine of one that failed to start goes here.
    engineProcess?.kill('SIGKILL');
    throw error;
  }
}

/** CPU time (user + system) of another process so far, ms; undefined where /proc is not there (not Linux). */
function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // Not Linux, or the process has gone.
    return undefined;
  }
  // The fields after the command name (which may hold spaces), from the state on: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // In clock ticks of USER_HZ, 100 on Linux.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

interface Answer {
  status: number;
  bytes: number;
  text: string;
  encoding?: string;
}

/** One request; resolves with the status and the bytes received (as sent: compressed or not). */
async function send(port: number, method: string, requestPath: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  try {
    return await sendOnce(port, method, requestPath, headers, body);
  } catch (error) {
    // The server closed an idle keep-alive connection just as it was reused (Node's documented race): once more.
    if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') throw error;
    return sendOnce(port, method, requestPath, headers, body);
  }
}

function sendOnce(port: number, method: string, requestPath: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: requestPath, headers: body ? { ...headers, 'content-length': Buffer.byteLength(body) } : headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        resolve({ status: res.statusCode ?? 0, bytes: raw.length, text: encoding ? '' : raw.toString('utf8'), encoding });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Figures extends WindowFigures {
  /** CPU of the engine's own process in the window, ms (when it runs apart and /proc can tell). */
  engineCpuMs?: number;
}

/** `warmUp`: requests sent after the heap is settled and before the window opens, unmeasured. */
async function window<T>(server: Server, work: () => Promise<T>, { sampleRss = false, warmUp }: { sampleRss?: boolean; warmUp?: () => Promise<unknown> } = {}): Promise<{ figures: Figures; result: T }> {
  if (warmUp) {
    await send(server.port, 'POST', '/bench/settle');
    await warmUp();
  }
  const search = [sampleRss ? 'rss=1' : '', warmUp ? 'settled=1' : ''].filter(Boolean).join('&');
  await send(server.port, 'POST', `/bench/window/start${search ? `?${search}` : ''}`);
  const engineBefore = processCpuMs(server.engineProcess?.pid);
  const result = await work();
  const engineAfter = processCpuMs(server.engineProcess?.pid);
  const stopped = await send(server.port, 'POST', '/bench/window/stop');
  const engineCpuMs = engineBefore === undefined || engineAfter === undefined ? undefined : engineAfter - engineBefore;
  return { figures: { ...(JSON.parse(stopped.text) as WindowFigures), engineCpuMs }, result };
}

/** One request of a target for a range; `headers` replace the target's own when given. */
function sendTarget(server: Server, target: Target, range: RangeSpec, headers = target.headers): Promise<Answer> {
  return send(server.port, target.method, target.path(range), headers, target.body?.(range));
}

function entriesOf(text: string): number {
  const parsed = JSON.parse(text) as unknown[] | { data: { timelineEvents: unknown[] } };
  return Array.isArray(parsed) ? parsed.length : parsed.data.timelineEvents.length;
}

/** A target on one dataset, with the server it goes to and what its rounds measured. */
interface Slot {
  target: Target;
  server: Server;
  figures: Figures[];
  perRequest: number;
  entries: number;
  bytes: number;
}

/**
 * One range on every dataset: warm-up, then rounds that take every dataset in turn (its targets'
 * windows, then its limits), so the machine's drift hits 5,000 and 20,000 flights alike.
 */
async function benchRange(range: RangeSpec, servers: Server[], options: Required<TimelineBenchOptions>, result: TimelineBenchResult): Promise<void> {
  const slots: Slot[] = [];
  for (const server of servers) {
    const wanted = targets(server.token).filter((target) => (target.engine ?? 'worker thread') === server.engine && (!target.ranges || target.ranges.includes(range.name)));
    // Checks, warm-up (graphql-jit compiles a document on its second sighting) and an estimate of
    // each request's time, so a round of each target lasts about roundMs.
    for (const target of wanted) {
      let first: Answer | undefined;
      const started = Date.now();
      for (let i = 0; i < 4; i += 1) {
        const answer = await sendTarget(server, target, range);
        if (answer.status !== 200) throw new Error(`${target.name} ${range.name}: status ${answer.status}: ${answer.text.slice(0, 300)}`);
        first ??= answer;
      }
      const perRequestMs = (Date.now() - started) / 4;
      const plain = first!.encoding ? await sendTarget(server, target, range, { ...target.headers, 'accept-encoding': 'identity' }) : first!;
      slots.push({ target, server, figures: [], perRequest: Math.max(3, Math.min(200, Math.ceil(options.roundMs / perRequestMs))), entries: entriesOf(plain.text), bytes: first!.bytes });
    }
  }
  const limitServers = servers.filter((server) => server.engine === 'worker thread');
  const limits = new Map<Server, { issue: LimitFigures[]; joined: LimitFigures[] }>(limitServers.map((server) => [server, { issue: [], joined: [] }]));
  for (let round = 0; round < options.rounds; round += 1) {
    for (const server of servers) {
      for (const slot of slots.filter((candidate) => candidate.server === server)) {
        const { target } = slot;
        const once = () => sendTarget(server, target, range);
        // The server sat idle while the others were measured, and a full collection after idling
        // shrinks V8's young generation (and short work right after idling measured slower for a
        // second or two: see the limit below): a third of a window's requests first (at least
        // two), unmeasured, so every window starts from the state of a server in use, as the
        // one-target-at-a-time rounds this replaced did.
        const warmUpRequests = Math.max(2, Math.ceil(slot.perRequest / 3));
        const { figures } = await window(
          server,
          async () => {
            for (let i = 0; i < slot.perRequest; i += 1) await once();
          },
          {
            warmUp: async () => {
              for (let i = 0; i < warmUpRequests; i += 1) await once();
            },
          },
        );
        slot.figures.push(figures);
      }
      // The limit after the server's windows, while it is in use: measured first after it sat
      // idle, every repetition of it cost several times more (1 day at 5,000 flights: 8 ms against
      // 1.4 ms, warm-up pass or not; the cause was not found).
      const limit = limits.get(server);
      if (!limit) continue;
      limit.issue.push(JSON.parse((await send(server.port, 'GET', `/bench/limit?${query(range)}&repetitions=5`)).text) as LimitFigures);
      limit.joined.push(JSON.parse((await send(server.port, 'GET', `/bench/limit?${query(range)}&repetitions=5&design=joined`)).text) as LimitFigures);
    }
  }
  for (const [server, { issue, joined }] of limits) {
    const summary = (list: LimitFigures[], design: LimitRow['design']): LimitRow => ({
      ...list[list.length - 1],
      cpuMs: median(list.map((limit) => limit.cpuMs)),
      allocatedBytes: median(list.map((limit) => limit.allocatedBytes)),
      load: median(list.map((limit) => limit.load)),
      flights: server.flights,
      range: range.name,
      design,
    });
    result.limits.push(summary(issue, 'issue'), summary(joined, 'joined'));
  }
  for (const { server, target, figures, perRequest, entries, bytes } of slots) {
    const per = (pick: (figure: Figures) => number) => median(figures.map((figure) => pick(figure) / perRequest));
    result.rows.push({
      flights: server.flights,
      range: range.name,
      target: target.name,
      entries,
      bodyBytes: bytes,
      cpuMs: per((figure) => figure.cpuMs),
      allocatedBytes: per((figure) => figure.allocatedBytes),
      scavenges: per((figure) => figure.scavenges),
      gcMs: per((figure) => figure.gcMs),
      keptBytes: figures.every((figure) => figure.keptBytes !== undefined) ? per((figure) => figure.keptBytes!) : undefined,
      engineCpuMs: figures.every((figure) => figure.engineCpuMs !== undefined) ? per((figure) => figure.engineCpuMs!) : undefined,
      wallMs: per((figure) => figure.wallMs),
      load: median(figures.map((figure) => figure.load)),
    });
  }
}

/** The 31-day facade request over several connections at once, against one server. */
async function benchConcurrency(server: Server, connections: number, options: Required<TimelineBenchOptions>, result: TimelineBenchResult): Promise<void> {
  const range = BENCH_RANGES.find((candidate) => candidate.name === '31 days')!;
  const name = server.engine === 'worker thread' ? 'REST facade GET' : SERVICE_ALONE_TARGET;
  const target = targets(server.token).find((candidate) => candidate.name === name)!;
  const url = `http://127.0.0.1:${server.port}`;
  const load = { method: target.method, path: target.path(range), headers: target.headers };
  await autocannon({ url, connections, amount: connections, timeout: 120, requests: [load] });
  // A fixed number of requests (not a duration): at 20,000 flights one can take seconds under load.
  const { figures, result: run } = await window(server, () => autocannon({ url, connections, amount: connections * options.requestsPerConnection, timeout: 120, requests: [load] }), { sampleRss: true });
  // Answers that are not 200 (a query stopped by GRAPHQL_TIMEOUT_MS or a database time limit under
  // this much load) are the service's limits at work: counted and shown, not hidden.
  const requests = Math.max(1, run.requests.total);
  result.loadRows.push({
    flights: server.flights,
    range: range.name,
    target: target.name,
    connections,
    p50Ms: run.latency.p50,
    p99Ms: run.latency.p99,
    rps: run.requests.average,
    cpuMsPerRequest: figures.cpuMs / requests,
    engineCpuMsPerRequest: figures.engineCpuMs === undefined ? undefined : figures.engineCpuMs / requests,
    allocatedBytesPerRequest: figures.allocatedBytes / requests,
    peakRssBytes: figures.peakRssBytes,
    peakYoungBytes: figures.peakYoungBytes,
    load: figures.load,
    refused: run.non2xx + run.errors,
  });
}

function stopServer(server: Server): void {
  server.child.kill('SIGKILL');
  server.engineProcess?.kill('SIGKILL');
}

export async function runTimelineBench(options: TimelineBenchOptions = {}): Promise<TimelineBenchResult> {
  // Environment overrides for a focused run, e.g. BENCH_TIMELINE_FLIGHTS=5000 BENCH_TIMELINE_RANGES="31 days"
  // BENCH_TIMELINE_CONNECTIONS= BENCH_TIMELINE_ROUNDS=9 npm run bench -- timeline.
  const env = process.env;
  const list = (name: string) => (env[name] === undefined ? undefined : env[name]!.split(',').map((item) => item.trim()).filter(Boolean));
  const numbers = (name: string) => list(name)?.map(Number);
  const settings: Required<TimelineBenchOptions> = {
    flights: options.flights ?? numbers('BENCH_TIMELINE_FLIGHTS') ?? [5000, 20000],
    rounds: options.rounds ?? (env.BENCH_TIMELINE_ROUNDS ? Number(env.BENCH_TIMELINE_ROUNDS) : 5),
    roundMs: options.roundMs ?? 1000,
    connections: options.connections ?? numbers('BENCH_TIMELINE_CONNECTIONS') ?? [4, 16],
    requestsPerConnection: options.requestsPerConnection ?? 4,
    // BENCH_NODE_FLAGS (space-separated, may be empty) compares other V8 flags with the service's own.
    nodeFlags: options.nodeFlags ?? serviceV8Flags(),
    ranges: options.ranges ?? list('BENCH_TIMELINE_RANGES') ?? BENCH_RANGES.map((range) => range.name),
    // BENCH_TIMELINE_SERVICE_ALONE=0 leaves out the servers whose engine runs in a process of its own.
    serviceAlone: options.serviceAlone ?? (env.BENCH_TIMELINE_SERVICE_ALONE !== '0' && !env.MONGODB_URI),
  };
  if (!Number.isInteger(settings.rounds) || settings.rounds < 1) throw new Error(`BENCH_TIMELINE_ROUNDS: ${settings.rounds} is not a number of rounds`);
  for (const flights of settings.flights) if (!Number.isInteger(flights) || flights < 1) throw new Error(`BENCH_TIMELINE_FLIGHTS: ${flights} is not a number of flights`);
  for (const range of settings.ranges) if (!BENCH_RANGES.some((known) => known.name === range)) throw new Error(`BENCH_TIMELINE_RANGES: "${range}" is none of ${BENCH_RANGES.map((known) => known.name).join(', ')}`);
  const result: TimelineBenchResult = { node: process.version, nodeFlags: settings.nodeFlags, rounds: settings.rounds, rows: [], limits: [], loadRows: [] };
  const servers: Server[] = [];
  try {
    // Every dataset's servers at once (memory is plenty: about 0.6 and 1.4 GiB), so rounds can
    // alternate between them.
    for (const flights of settings.flights) {
      servers.push(await startServer(flights, 'worker thread', settings.nodeFlags));
      if (settings.serviceAlone) servers.push(await startServer(flights, 'own process', settings.nodeFlags));
    }
    for (const range of BENCH_RANGES.filter((candidate) => settings.ranges.includes(candidate.name))) {
      await benchRange(range, servers, settings, result);
      // Progress on stderr: a long run that fails later still leaves what it measured.
      process.stderr.write(`${formatTimelineBench(result)}\n`);
    }
    for (const server of servers) {
      for (const connections of settings.connections) await benchConcurrency(server, connections, settings, result);
    }
  } finally {
    for (const server of servers) stopServer(server);
  }
  agent.destroy();
  return result;
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(bytes >= 10 * 1024 * 1024 ? 0 : 1);

export function formatTimelineBench(result: TimelineBenchResult): string {
  const lines = [
    `Timeline data path (issue 14), Node ${result.node}${result.nodeFlags.length ? ` ${result.nodeFlags.join(' ')}` : ''}; requests one at a time, medians of ${result.rounds} rounds; server CPU and V8 heap allocation per request; load = one-minute load average (2 cores).`,
    '',
    '| Flights | Range | Entries | Target | Answer | CPU / request | × limit | × limit (joined) | CPU / entry | Allocated / request | Allocated / entry | Scavenges | Kept past scavenges / request | Engine process CPU / request | Wall | Load |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const limitOf = (row: TargetRow, design: LimitRow['design']) => result.limits.find((limit) => limit.flights === row.flights && limit.range === row.range && limit.design === design)!;
  // Without entries the limit is next to nothing: no ratio to it is worth printing.
  const ratio = (cpuMs: number, limit: LimitRow) => (limit.documents > 0 ? (cpuMs / limit.cpuMs).toFixed(2) : '—');
  // Grouped by dataset (rounds interleave the datasets, so rows arrive range by range).
  const byFlights = <T extends { flights: number }>(rows: T[]) => [...rows].sort((a, b) => a.flights - b.flights);
  for (const row of byFlights(result.rows)) {
    lines.push(
      `| ${row.flights} | ${row.range} | ${row.entries} | ${row.target} | ${(row.bodyBytes / 1024).toFixed(0)} KiB | ${ms(row.cpuMs)} ms | ${ratio(row.cpuMs, limitOf(row, 'issue'))} | ${ratio(row.cpuMs, limitOf(row, 'joined'))} | ${row.entries ? `${((row.cpuMs * 1000) / row.entries).toFixed(1)} µs` : '—'} | ${mib(row.allocatedBytes)} MiB | ${row.entries ? `${(row.allocatedBytes / row.entries / 1024).toFixed(1)} KiB` : '—'} | ${row.scavenges.toFixed(1)} | ${row.keptBytes === undefined ? '—' : `${(row.keptBytes / 1024).toFixed(0)} KiB`} | ${row.engineCpuMs === undefined ? '—' : `${ms(row.engineCpuMs)} ms`} | ${ms(row.wallMs)} ms | ${row.load.toFixed(1)} |`,
    );
  }
  lines.push(
    '',
    'The limit (issue 28: what the wire carries, once): the documents serialised as one BSON reply and that reply deserialised once, then JSON.stringify of the answer; the main thread\'s CPU, no collection forced, medians. "issue": the documents issue 14 counted (flights, one count document per flight, airports, resources); "joined": what the request reads now (each flight with its count joined).',
    '',
    '| Flights | Range | Limit | Documents | BSON | JSON | Limit CPU | Limit allocation | Load |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const limit of byFlights(result.limits)) {
    lines.push(`| ${limit.flights} | ${limit.range} | ${limit.design} | ${limit.documents} | ${(limit.bsonBytes / 1024).toFixed(0)} KiB | ${(limit.jsonBytes / 1024).toFixed(0)} KiB | ${ms(limit.cpuMs)} ms | ${mib(limit.allocatedBytes)} MiB | ${limit.load.toFixed(1)} |`);
  }
  if (result.loadRows.length) {
    lines.push(
      '',
      'Under concurrency (autocannon, a fixed number of requests per connection; server CPU and allocation divided by the requests sent; "not 200": stopped by a time limit):',
      '',
      '| Flights | Range | Target | Connections | p50 | p99 | Requests/s | Not 200 | CPU / request | Engine process CPU / request | Allocated / request | Peak RSS | Peak young generation | Load |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const row of result.loadRows) {
      lines.push(
        `| ${row.flights} | ${row.range} | ${row.target} | ${row.connections} | ${ms(row.p50Ms)} ms | ${ms(row.p99Ms)} ms | ${row.rps.toFixed(1)} | ${row.refused} | ${ms(row.cpuMsPerRequest)} ms | ${row.engineCpuMsPerRequest === undefined ? '—' : `${ms(row.engineCpuMsPerRequest)} ms`} | ${mib(row.allocatedBytesPerRequest)} MiB | ${mib(row.peakRssBytes)} MiB | ${mib(row.peakYoungBytes)} MiB | ${row.load.toFixed(1)} |`,
      );
    }
  }
  lines.push('', ...targetSummary(result));
  return lines.join('\n');
}

/** Issue 14's targets, read off the rows. */
function targetSummary(result: TimelineBenchResult): string[] {
  const find = (flights: number, range: string, target: string) => result.rows.find((row) => row.flights === flights && row.range === range && row.target === target);
  const lines: string[] = ['Targets:'];
  for (const target of ['GraphQL POST /graphql', 'REST facade GET', SERVICE_ALONE_TARGET]) {
    for (const range of target === SERVICE_ALONE_TARGET ? [] : ['31 days', '1 day']) {
      const row = find(5000, range, target);
      const limit = result.limits.find((candidate) => candidate.flights === 5000 && candidate.range === range && candidate.design === 'issue');
      if (row && limit) lines.push(`- ${target}, ${range}, 5,000 flights: ${(row.cpuMs / limit.cpuMs).toFixed(2)}× the limit in CPU (target ≤ 2×)`);
    }
    const day = find(5000, '1 day', target);
    const empty = find(5000, 'empty day', target);
    const dayLimit = result.limits.find((candidate) => candidate.flights === 5000 && candidate.range === '1 day' && candidate.design === 'issue');
    if (day && empty && dayLimit) {
      lines.push(`- ${target}, 1 day, 5,000 flights, net of the same request on a day without flights (${ms(empty.cpuMs)} ms): ${((day.cpuMs - empty.cpuMs) / dayLimit.cpuMs).toFixed(2)}× the limit`);
    }
    const small = find(5000, '31 days', target);
    const large = find(20000, '31 days', target);
    if (small && large) lines.push(`- ${target}, 31 days: CPU per entry at 20,000 / at 5,000 = ${(large.cpuMs / large.entries / (small.cpuMs / small.entries)).toFixed(2)} (target ≤ 1.2)`);
  }
  // More connections should not cost more CPU per request than one at a time.
  for (const row of result.loadRows) {
    const alone = find(row.flights, row.range, row.target);
    if (alone) lines.push(`- ${row.target}, ${row.range}, ${row.flights} flights, ${row.connections} connections: CPU per request ${(row.cpuMsPerRequest / alone.cpuMs).toFixed(2)}× one at a time`);
  }
  return lines;
}

if (require.main === module) {
  runTimelineBench()
    .then((result) => console.log(formatTimelineBench(result)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
