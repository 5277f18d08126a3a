import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's collector, made callable in this process (jest's workers run without --expose-gc). */
const collectGarbage = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

export interface HeapGrowth<T> {
  result: T;
  /** The most the task held alive at once above the collected start (the heap collected, then read, every SAMPLE_MS while it ran). */
  peakLiveBytes: number;
  /** What the task left on the heap once it was collected again. */
  retainedBytes: number;
}

/**
 * How often the heap is collected and read while the task runs: every SAMPLE_MS, or, where a
 * collection takes longer (a large heap, a loaded machine), GC_SHARE times what the last one took,
 * so the collections never take more than a fifth of the task's time. (At a fixed 20 ms, collections
 * of 50 ms on a busy CI worker left the task no time: a 10-second parse ran past 120 s.)
 */
const SAMPLE_MS = 20;
const GC_SHARE = 4;

/**
 * What `task` keeps alive on the heap, measured so that the collector's timing does not decide it:
 * the heap is collected first, then collected and read every SAMPLE_MS or so while the task runs (its
 * garbage never counts, only what it holds), and collected again after it. A bare difference of
 * `heapUsed` before and after the same work moved between −29 and +40 MB with when the last young
 * collection happened to run, and even a peak sampled without collecting moved from 27 to 55 MB
 * between a quiet machine and CI.
 */
export async function heapGrowth<T>(task: () => Promise<T>): Promise<HeapGrowth<T>> {
  collectGarbage();
  const start = process.memoryUsage().heapUsed;
  let peak = start;
  let running = true;
  let sampler: NodeJS.Timeout | undefined;
  const sample = () => {
    const started = performance.now();
    collectGarbage();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    if (running) sampler = setTimeout(sample, Math.max(SAMPLE_MS, (performance.now() - started) * GC_SHARE));
  };
  sampler = setTimeout(sample, SAMPLE_MS);
  try {
    const result = await task();
    collectGarbage();
    return { result, peakLiveBytes: peak - start, retainedBytes: process.memoryUsage().heapUsed - start };
  } finally {
    running = false;
    clearTimeout(sampler);
  }
}
