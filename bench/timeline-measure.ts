/**
 * What the timeline benchmark measures inside the server process: the CPU time and the V8 heap
 * allocation of a window of requests, and the physical limit of a request (the BSON and JSON work
 * its answer cannot avoid).
 *
 * Allocation is read from V8's GC profiler: every collection reports the heap's used size before
 * and after it, so the bytes allocated in a window are the growth of the used heap between
 * collections, summed (before each collection minus after the previous one, plus the growth since
 * the last). That counts every JavaScript object and string the window created, whether it died
 * young or not; Buffer contents (socket frames, the response's bytes) live outside the V8 heap and
 * are not counted.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { GCProfiler, getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { deserialize, serialize, type Document } from 'bson';

export interface WindowFigures {
  /** CPU time of the whole process (user + system), ms. */
  cpuMs: number;
  /**
   * CPU time of the main thread alone, ms (Linux: /proc/thread-self/schedstat; undefined elsewhere):
   * the rest of `cpuMs` is V8's helper threads (parallel and concurrent collection, compilation)
   * and libuv's pool.
   */
  mainThreadCpuMs?: number;
  wallMs: number;
  /** Bytes allocated on the V8 heap (see the file comment). */
  allocatedBytes: number;
  scavenges: number;
  markCompacts: number;
  /** Time V8 reported spent in collections, ms. */
  gcMs: number;
  /** Highest RSS sampled every 20 ms during the window (when asked for: sampling costs CPU), else RSS at its ends. */
  peakRssBytes: number;
  /** Highest memory of the young generation (new space and new large objects) sampled likewise: what --max-semi-space-size bounds. */
  peakYoungBytes: number;
  /** One-minute load average of the machine at the end of the window. */
  load: number;
  /**
   * What the window's requests left behind past two young-generation collections run at its end:
   * growth of the used V8 heap plus Buffer memory since the start (after a full collection). A
   * request that lets go of everything leaves about nothing; what stays until a full collection
   * (promoted, or held by an old object) shows here. Undefined without --expose-gc.
   */
  keptBytes?: number;
}

interface GcStatistic {
  gcType: string;
  cost: number;
  beforeGC: { heapStatistics: { usedHeapSize: number } };
  afterGC: { heapStatistics: { usedHeapSize: number } };
}

/** One measurement window at a time (the benchmark sends one request at a time, or one load run). */
export class MeasurementWindow {
  private profiler?: GCProfiler;
  private startCpu = process.cpuUsage();
  private startThreadCpu: number | undefined;
  private startWall = 0;
  private startUsed = 0;
  private startKept = 0;
  private peakRss = 0;
  private peakYoung = 0;
  private sampler?: NodeJS.Timeout;

  start({ sampleRss = false } = {}): void {
    this.stopSampler();
    this.profiler?.stop();
    this.peakRss = process.memoryUsage.rss();
    this.peakYoung = youngGenerationBytes();
    if (sampleRss) {
      this.sampler = setInterval(() => {
        this.peakRss = Math.max(this.peakRss, process.memoryUsage.rss());
        this.peakYoung = Math.max(this.peakYoung, youngGenerationBytes());
      }, 20);
      this.sampler.unref();
    }
    this.profiler = new GCProfiler();
    this.startUsed = getHeapStatistics().used_heap_size;
    this.startKept = keptMemory();
    this.profiler.start();
    this.startWall = performance.now();
    this.startCpu = process.cpuUsage();
    this.startThreadCpu = threadCpuMs();
  }

  /** The window's figures; `collect: false` (a steady-state phase) leaves the heap as the requests left it, without the measurement's own young collections. */
  stop({ collect = true }: { collect?: boolean } = {}): WindowFigures {
    const cpu = process.cpuUsage(this.startCpu);
    const threadCpu = threadCpuMs();
    const wallMs = performance.now() - this.startWall;
    const endUsed = getHeapStatistics().used_heap_size;
    const statistics = ((this.profiler?.stop() as { statistics?: GcStatistic[] } | undefined)?.statistics ?? []) as GcStatistic[];
    this.profiler = undefined;
    this.stopSampler();
    let allocated = 0;
    let previousAfter = this.startUsed;
    let gcMs = 0;
    let scavenges = 0;
    let markCompacts = 0;
    for (const gc of statistics) {
      allocated += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - previousAfter);
      previousAfter = gc.afterGC.heapStatistics.usedHeapSize;
      gcMs += gc.cost / 1000;
      if (gc.gcType === 'Scavenge' || gc.gcType === 'MinorMarkSweep') scavenges += 1;
      else if (gc.gcType === 'MarkSweepCompact') markCompacts += 1;
    }
    allocated += Math.max(0, endUsed - previousAfter);
    // After the figures above: these collections are the measurement's own.
    const collected = collect && youngCollections();
    return {
      cpuMs: (cpu.user + cpu.system) / 1000,
      mainThreadCpuMs: threadCpu !== undefined && this.startThreadCpu !== undefined ? threadCpu - this.startThreadCpu : undefined,
      wallMs,
      allocatedBytes: allocated,
      scavenges,
      markCompacts,
      gcMs,
      peakRssBytes: Math.max(this.peakRss, process.memoryUsage.rss()),
      peakYoungBytes: Math.max(this.peakYoung, youngGenerationBytes()),
      load: loadavg()[0],
      keptBytes: collected ? keptMemory() - this.startKept : undefined,
    };
  }

  private stopSampler(): void {
    if (this.sampler) clearInterval(this.sampler);
    this.sampler = undefined;
  }
}

/** CPU time of the calling thread in ms, from Linux's scheduler statistics (ns on the CPU); undefined elsewhere. */
function threadCpuMs(): number | undefined {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * Two young-generation collections (with --expose-gc): what is young and dead goes, nothing is
 * shrunk. False when the process cannot collect on demand.
 */
export function youngCollections(): boolean {
  const gc = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc;
  if (!gc) return false;
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  return true;
}

function keptMemory(): number {
  return getHeapStatistics().used_heap_size + process.memoryUsage().arrayBuffers;
}

function youngGenerationBytes(): number {
  let bytes = 0;
  for (const space of getHeapSpaceStatistics()) if (space.space_name === 'new_space' || space.space_name === 'new_large_object_space') bytes += space.physical_space_size;
  return bytes;
}

export interface LimitFigures {
  /** Median over the repetitions of the main thread's CPU time of one pass, ms. */
  cpuMs: number;
  /** Median allocation of one pass. */
  allocatedBytes: number;
  documents: number;
  bsonBytes: number;
  jsonBytes: number;
  load: number;
}

/** Unmeasured passes before the measured ones: the code paths compiled and the inline caches warm, as in a server in use. */
const LIMIT_WARM_UP_PASSES = 2;

/** The calling thread's CPU time (Node 23.9 and later; @types/node of this project predates it). */
const threadCpuUsage = (previous?: NodeJS.CpuUsage) => (process as unknown as { threadCpuUsage(previous?: NodeJS.CpuUsage): NodeJS.CpuUsage }).threadCpuUsage(previous);

/**
 * The physical limit of one request (issue 28's definition): what the wire carries, once. The
 * documents it reads are serialised as one reply (`{cursor: {firstBatch: [...], id: 0}, ok: 1}`,
 * as the server sends a command's answer) and that reply deserialised once (as the driver reads
 * it), then its answer goes through `JSON.stringify` once. Anything a request spends beyond this
 * is overhead. The CPU counted is the main thread's (`process.threadCpuUsage`): V8's helper threads
 * (concurrent marking, sweeping) work for whatever came before as much as for this pass. No
 * collection is forced inside or between the timed passes; a few passes run first, unmeasured.
 *
 * Issue 14's definition (each document serialised and deserialised on its own, a forced full
 * collection before each repetition, the CPU of every thread) measured 1.2 to 2.1 times this, and
 * the limits published with it were another 2.2 to 2.4 times above (bench/README.md, "The honest limit").
 */
export function measureLimit(documents: readonly Document[], answer: unknown, repetitions: number): LimitFigures {
  const window = new MeasurementWindow();
  const cpu: number[] = [];
  const allocated: number[] = [];
  let bsonBytes = 0;
  let jsonBytes = 0;
  let load = 0;
  const reply = { cursor: { firstBatch: documents, id: 0, ns: 'broker.flights' }, ok: 1 };
  for (let repetition = 0; repetition < LIMIT_WARM_UP_PASSES + repetitions; repetition += 1) {
    window.start();
    const started = threadCpuUsage();
    const bytes = serialize(reply);
    deserialize(bytes);
    const json = JSON.stringify(answer);
    const used = threadCpuUsage(started);
    const figures = window.stop();
    bsonBytes = bytes.length;
    jsonBytes = json.length;
    if (repetition < LIMIT_WARM_UP_PASSES) continue;
    cpu.push((used.user + used.system) / 1000);
    allocated.push(figures.allocatedBytes);
    load = figures.load;
  }
  return { cpuMs: median(cpu), allocatedBytes: median(allocated), documents: documents.length, bsonBytes, jsonBytes, load };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
