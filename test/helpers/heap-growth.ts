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

/** How often the heap is collected and read while the task runs. */
const SAMPLE_MS = 20;

/**
 * What `task` keeps alive on the heap, measured so that the collector's timing does not decide it:
 * the heap is collected first, then collected and read every SAMPLE_MS while the task runs (its
 * garbage never counts, only what it holds), and collected again after it. A bare difference of
 * `heapUsed` before and after the same work moved between −29 and +40 MB with when the last young
 * collection happened to run, and even a peak sampled without collecting moved from 27 to 55 MB
 * between a quiet machine and CI.
 */
export async function heapGrowth<T>(task: () => Promise<T>): Promise<HeapGrowth<T>> {
  collectGarbage();
  const start = process.memoryUsage().heapUsed;
  let peak = start;
  const sampler = setInterval(() => {
    collectGarbage();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, SAMPLE_MS);
  try {
    const result = await task();
    collectGarbage();
    return { result, peakLiveBytes: peak - start, retainedBytes: process.memoryUsage().heapUsed - start };
  } finally {
    clearInterval(sampler);
  }
}
