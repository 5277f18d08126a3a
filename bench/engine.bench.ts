/**
 * Speed of the embedded MongoDB-compatible engine as the service uses it: through mongoose 9
 * over TCP against a freshly started engine. Measures a 10,000-document insertMany, a lean find
 * of 10,000 documents, and 1,000 single-document lookups by a uniquely indexed field at 10,000
 * and at 100,000 documents, next to the same lookups on a field without an index (which must
 * scan), to show lookups go through the index and stay flat as the collection grows.
 *
 * Run alone: `npx tsc -p tsconfig.build.json && node dist/bench/engine.bench.js`.
 */
import { performance } from 'node:perf_hooks';
import mongoose from 'mongoose';
import { startEmbeddedMongo } from '@broker/embedded-mongo';

export interface EngineBenchOptions {
  /** Repetitions of each measurement; the median is reported. */
  repetitions?: number;
  /** Lookups per lookup measurement. */
  lookups?: number;
  /** Lookups per repetition on the non-indexed field at the larger size (each one scans). */
  scanLookupsAtLargeSize?: number;
}

export interface EngineBenchRow {
  /** What was measured. */
  name: string;
  /** Documents in the collection while measuring. */
  collectionSize: number;
  /** Operations timed per repetition. */
  operations: number;
  repetitions: number;
  /** Median over the repetitions of the elapsed time for all operations, in milliseconds. */
  medianTotalMs: number;
  /** medianTotalMs / operations, in microseconds. */
  medianMicrosPerOperation: number;
}

export interface EngineBenchResult {
  node: string;
  rows: EngineBenchRow[];
}

interface BenchPassenger {
  email: string;
  ref: string;
  name: string;
  flight: string;
  seat: number;
  bags: number;
  createdAt: Date;
}

function passenger(i: number): BenchPassenger {
  return {
    email: `passenger${i}@example.com`,
    ref: `REF-${i}`,
    name: `Passenger ${i}`,
    flight: `BF${i % 200}`,
    seat: i % 180,
    bags: i % 3,
    createdAt: new Date(1_790_000_000_000 + i * 1000),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

async function measure(repetitions: number, prepare: () => Promise<void>, run: () => Promise<void>): Promise<number> {
  const timings: number[] = [];
  for (let i = 0; i < repetitions; i += 1) {
    await prepare();
    const started = performance.now();
    await run();
    timings.push(performance.now() - started);
  }
  return median(timings);
}

function row(name: string, collectionSize: number, operations: number, repetitions: number, medianTotalMs: number): EngineBenchRow {
  return { name, collectionSize, operations, repetitions, medianTotalMs, medianMicrosPerOperation: (medianTotalMs * 1000) / operations };
}

/** Lookup targets spread over the whole collection, the same for every repetition. */
function lookupTargets(count: number, size: number): number[] {
  return Array.from({ length: count }, (_, i) => Math.floor(((i * 7919) % count) * (size / count)));
}

export async function runEngineBench(options: EngineBenchOptions = {}): Promise<EngineBenchResult> {
  const repetitions = options.repetitions ?? 5;
  const lookups = options.lookups ?? 1000;
  const scanLookupsAtLargeSize = options.scanLookupsAtLargeSize ?? 100;
  const engine = await startEmbeddedMongo();
  const connection = await mongoose.createConnection(`${engine.uri}/engine_bench`).asPromise();
  const rows: EngineBenchRow[] = [];
  try {
    const schema = new mongoose.Schema<BenchPassenger>({
      email: { type: String, required: true, unique: true },
      ref: { type: String, required: true },
      name: String,
      flight: String,
      seat: Number,
      bags: Number,
      createdAt: Date,
    });
    const Passenger = connection.model<BenchPassenger>('BenchPassenger', schema, 'passengers');
    await Passenger.init();
    const tenThousand = Array.from({ length: 10_000 }, (_, i) => passenger(i));

    const insertMs = await measure(
      repetitions,
      () => Passenger.deleteMany({}).then(() => undefined),
      () => Passenger.insertMany(tenThousand, { lean: true }).then(() => undefined),
    );
    rows.push(row('insertMany (mongoose, lean)', 0, 10_000, repetitions, insertMs));

    const findMs = await measure(repetitions, async () => undefined, async () => {
      const found = await Passenger.find({}).lean();
      if (found.length !== 10_000) throw new Error(`lean find returned ${found.length} documents`);
    });
    rows.push(row('find all, lean', 10_000, 10_000, repetitions, findMs));

    const lookupRows = async (size: number, scanLookups: number) => {
      const targets = lookupTargets(lookups, size);
      const indexedMs = await measure(repetitions, async () => undefined, async () => {
        for (const i of targets) {
          const found = await Passenger.findOne({ email: `passenger${i}@example.com` }).lean();
          if (!found) throw new Error(`passenger ${i} not found by email`);
        }
      });
      rows.push(row('findOne by unique indexed field', size, lookups, repetitions, indexedMs));
      const scanTargets = lookupTargets(scanLookups, size);
      const scanMs = await measure(repetitions, async () => undefined, async () => {
        for (const i of scanTargets) {
          const found = await Passenger.findOne({ ref: `REF-${i}` }).lean();
          if (!found) throw new Error(`passenger ${i} not found by ref`);
        }
      });
      rows.push(row('findOne by non-indexed field (scan)', size, scanLookups, repetitions, scanMs));
    };

    await lookupRows(10_000, lookups);
    for (let start = 10_000; start < 100_000; start += 10_000) {
      await Passenger.insertMany(
        Array.from({ length: 10_000 }, (_, i) => passenger(start + i)),
        { lean: true },
      );
    }
    await lookupRows(100_000, scanLookupsAtLargeSize);
  } finally {
    await connection.close();
    await engine.stop();
  }
  return { node: process.version, rows };
}

export function formatEngineBench(result: EngineBenchResult): string {
  const lines = [
    `Embedded engine (Node ${result.node}), medians:`,
    '| Measurement | Documents | Operations | Runs | Median total | Median per operation |',
    '|---|---|---|---|---|---|',
  ];
  for (const entry of result.rows) {
    lines.push(
      `| ${entry.name} | ${entry.collectionSize.toLocaleString('en-US')} | ${entry.operations.toLocaleString('en-US')} | ${entry.repetitions} | ${entry.medianTotalMs.toFixed(1)} ms | ${entry.medianMicrosPerOperation.toFixed(1)} µs |`,
    );
  }
  return lines.join('\n');
}

if (require.main === module) {
  runEngineBench()
    .then((result) => console.log(formatEngineBench(result)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
