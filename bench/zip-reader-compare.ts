import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { parsePassengerSheet as ParseFunction } from '../src/passengers/sheet/parse-passenger-sheet';
import { benchOds, partsOf, writeBenchWorkbook, zipOf, type Part } from './sheet.bench';

/**
 * One-off comparison behind the zip reading's figures (bench/README.md, "Passenger spreadsheet parsing"): the
 * sheet reader of another tree of this repository (the hand-written zip reader of c6bf345) beside
 * this tree's (yauzl), taking turns in one process on the 2,000-row lists of the sheet bench and on
 * zip bombs, with the service's default limits. Medians of wall time, CPU time and the longest gap
 * between two timer turns while parsing (at a high load average it includes time spent waiting
 * for a core). Not part of `npm run bench`: it needs the other tree, exported and given this
 * tree's node_modules, and runs from the sources:
 *   git archive c6bf345 | tar -x -C /tmp/zip-old && ln -s "$PWD/node_modules" /tmp/zip-old/node_modules
 *   node -r ./scripts/register-ts.cjs bench/zip-reader-compare.ts /tmp/zip-old
 */

type Parse = typeof ParseFunction;
const LIMITS = {
  uploadMaxBytes: 5 * 1024 * 1024,
  uploadMaxRows: 2000,
  uploadMaxColumns: 64,
  uploadMaxUncompressedBytes: 50 * 1024 * 1024,
  uploadMaxCells: 200_000,
  uploadMaxParseMs: 10_000,
};
const TODAY = new Date(Date.UTC(2026, 10, 21));
const SHEET = 'xl/worksheets/sheet1.xml';

function load(tree: string): Parse {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module of another tree, named at run time
  return (require(path.join(tree, 'src/passengers/sheet/parse-passenger-sheet.ts')) as { parsePassengerSheet: Parse }).parsePassengerSheet;
}

async function outcome(parse: Parse, bytes: Buffer): Promise<string> {
  try {
    const result = await parse(bytes, { flightId: 1, limits: LIMITS, today: TODAY });
    return `200, ${result.records.length} records`;
  } catch (error) {
    const { status, message } = error as { status?: number; message?: string };
    return `${status} ${String(message).slice(0, 70)}`;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const empty = (name: string): Part => ({ name, data: Buffer.alloc(0) });

interface Figures {
  wall: number[];
  cpu: number[];
  gap: number[];
}

async function measure(parse: Parse, bytes: Buffer, figures: Figures): Promise<void> {
  let last = performance.now();
  let gap = 0;
  let running = true;
  const tick = () => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
    if (running) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  await outcome(parse, bytes);
  figures.wall.push(performance.now() - start);
  const cpu = process.cpuUsage(cpuStart);
  figures.cpu.push((cpu.user + cpu.system) / 1000);
  await new Promise((resolve) => setTimeout(resolve, 0));
  running = false;
  figures.gap.push(gap);
}

async function main(otherTree: string): Promise<void> {
  const parsers = { before: load(otherTree), after: load(path.resolve(__dirname, '..')) };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zip-reader-'));
  const file = path.join(dir, 'passengers-2000.xlsx');
  await writeBenchWorkbook(file, 2000);
  const xlsx = readFileSync(file);
  rmSync(dir, { recursive: true, force: true });
  const base = (await partsOf(xlsx)).filter((part) => part.name !== SHEET);
  const mimetype = { name: 'mimetype', data: Buffer.from('application/vnd.oasis.opendocument.spreadsheet') };
  const files: [string, Buffer, number][] = [
    ['2,000-row .xlsx', xlsx, 21],
    ['2,000-row .ods', benchOds(2000), 21],
    ['directory bomb: a part of 60 MiB declared', zipOf([...base, { name: SHEET, data: Buffer.alloc(60 * 1024 * 1024) }]), 21],
    ['a part inflating to 40 MiB while declaring 4 KB', zipOf([...base, { name: SHEET, data: Buffer.alloc(40 * 1024 * 1024, 0x20), declared: 4096 }]), 21],
    ['.ods: content.xml inflating to 40 MiB while declaring 4 KB', zipOf([mimetype, { name: 'content.xml', data: Buffer.alloc(40 * 1024 * 1024, 0x20), declared: 4096 }]), 21],
    ['10,001 empty parts (refused by the count)', zipOf(Array.from({ length: 10_001 }, (_, i) => empty(`p${i}`))), 21],
    [
      '10,000 parts, the last declaring 60 MiB (whole directory read, then 413)',
      zipOf([...base, ...Array.from({ length: 9_980 }, (_, i) => empty(`junk/p${i}`)), { name: SHEET, data: Buffer.alloc(60 * 1024 * 1024) }]),
      21,
    ],
  ];
  console.log(`Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
  for (const [label, bytes, repetitions] of files) {
    const answers = [await outcome(parsers.before, bytes), await outcome(parsers.after, bytes)];
    const figures = { before: { wall: [], cpu: [], gap: [] } as Figures, after: { wall: [], cpu: [], gap: [] } as Figures };
    for (let i = 0; i < repetitions; i += 1) {
      const order = i % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const which of order) await measure(parsers[which], bytes, figures[which]);
    }
    const show = (key: keyof Figures) =>
      `${median(figures.before[key]).toFixed(1)} → ${median(figures.after[key]).toFixed(1)} ms (${(median(figures.after[key]) / median(figures.before[key])).toFixed(2)})`;
    console.log(
      `${label} (${(bytes.length / 1024).toFixed(0)} KiB): wall ${show('wall')}, CPU ${show('cpu')}, longest gap ${show('gap')}; ` +
        (answers[0] === answers[1] ? answers[0] : `answers differ: ${answers[0]} / ${answers[1]}`),
    );
  }
  console.log(`load average at the end ${os.loadavg()[0].toFixed(1)}`);
}

if (require.main === module) {
  const tree = process.argv[2];
  if (!tree) throw new Error('usage: node -r ./scripts/register-ts.cjs bench/zip-reader-compare.ts <other tree>');
  void main(path.resolve(tree));
}
