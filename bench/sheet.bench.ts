import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import ExcelJS from 'exceljs';
import zlib from 'node:zlib';
import { parsePassengerSheet, type PassengerSheetLimits } from '../src/passengers/sheet/parse-passenger-sheet';
import { endOfDirectoryStub, localFileHeader, readZipDirectory } from '../src/passengers/sheet/zip-directory';

/**
 * Passenger spreadsheet parsing: time against a bare exceljs streaming read of the same file, and
 * peak memory of 10,000 against 50,000 rows (each in a fresh process).
 * Run: `npx tsc -p tsconfig.build.json && node dist/bench/sheet.bench.js [--write-readme]`.
 */

const LIMITS: PassengerSheetLimits = {
  uploadMaxBytes: 512 * 1024 * 1024,
  uploadMaxRows: 1_000_000,
  uploadMaxColumns: 64,
  uploadMaxUncompressedBytes: 1024 * 1024 * 1024,
};
const REPETITIONS = 5;
const TODAY = new Date(Date.UTC(2026, 10, 21));

const SURNAMES = ['Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci', 'Marino', 'Greco'];
const NAMES = ['Mario', 'Giulia', 'Luca', 'Francesca', 'Marco', 'Sara', 'Andrea', 'Chiara', 'Paolo', 'Elena'];
const COUNTRIES = ['IT', 'Italy', 'ITA', 'Germany', 'FR', 'Spagna', 'GBR', 'United States'];
const HEADINGS = [
  'Surname', 'Name', 'Date of birth', 'Country of birth', 'Nationality', 'Document type', 'Document number',
  'Document expiry', 'Issuing state', 'E-mail', 'Phone', 'Carrying infant', 'Gender', 'Parent row',
];

/** A realistic list written the way Excel writes it: shared strings, date-formatted cells. */
export async function writeBenchWorkbook(file: string, rows: number): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: true, useStyles: true });
  const sheet = workbook.addWorksheet('Passengers');
  sheet.addRow(HEADINGS).commit();
  for (let i = 1; i <= rows; i += 1) {
    const child = i % 10 === 0;
    const row = sheet.addRow([
      SURNAMES[i % SURNAMES.length],
      `${NAMES[(i * 7) % NAMES.length]} ${i % 3 === 0 ? 'Maria' : ''}`,
      new Date(Date.UTC(child ? 2020 : 1950 + (i % 50), i % 12, 1 + (i % 28))),
      COUNTRIES[i % COUNTRIES.length],
      COUNTRIES[(i + 1) % COUNTRIES.length],
      i % 4 === 0 ? 'I' : 'P',
      `YA${String(1_000_000 + i)}`,
      new Date(Date.UTC(2030 + (i % 5), (i * 5) % 12, 1 + (i % 27))),
      COUNTRIES[(i + 2) % COUNTRIES.length],
      i % 5 === 0 ? null : `passenger${i}@example.com`,
      i % 2 === 0 ? `+39 333 ${String(1_000_000 + i).slice(-7)}` : null,
      i % 10 === 9 ? 'yes' : 'no',
      i % 2 === 0 ? 'F' : 'M',
      child ? i - 1 : null,
    ]);
    for (const column of [3, 8]) row.getCell(column).numFmt = 'dd/mm/yyyy';
    row.commit();
  }
  sheet.commit();
  await workbook.commit();
}

/**
 * The same workbook with its parts in the order exceljs streams best (relationships, workbook,
 * shared strings, then worksheets), still deflated. Excel and exceljs write the shared strings after
 * the worksheets, which makes exceljs spool each worksheet to a temporary file first.
 */
export function sharedStringsFirst(bytes: Buffer): Buffer {
  const order = ['xl/_rels/workbook.xml.rels', 'xl/workbook.xml', 'xl/sharedStrings.xml'];
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : name.startsWith('xl/worksheets/sheet') ? 3 : 4);
  const pieces: Buffer[] = [];
  for (const entry of readZipDirectory(bytes).sort((a, b) => rank(a.name) - rank(b.name))) {
    if (rank(entry.name) > 3) continue;
    const data = bytes.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
    const compressed = entry.method === 8 ? data : zlib.deflateRawSync(data);
    pieces.push(localFileHeader(entry.name, 8, entry.crc32, compressed.length, entry.uncompressedSize), compressed);
  }
  return Buffer.concat([...pieces, endOfDirectoryStub()]);
}

/** (a) what exceljs alone costs: every cell of every row visited, nothing else done. */
export async function rawExceljsRead(bytes: Buffer): Promise<number> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([bytes], { objectMode: false }), {});
  let cells = 0;
  for await (const worksheet of reader as unknown as AsyncIterable<ExcelJS.Worksheet>) {
    for await (const row of worksheet as unknown as AsyncIterable<ExcelJS.Row>) {
      row.eachCell(() => {
        cells += 1;
      });
    }
  }
  return cells;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Medians of `repetitions` runs of each task after one warm-up each. The tasks take turns, so load
 * from other work on the machine falls on all of them alike.
 */
async function timeInTurns(repetitions: number, tasks: (() => Promise<unknown>)[]): Promise<number[]> {
  for (const task of tasks) await task();
  const times: number[][] = tasks.map(() => []);
  for (let i = 0; i < repetitions; i += 1) {
    for (const [index, task] of tasks.entries()) {
      const start = performance.now();
      await task();
      times[index].push(performance.now() - start);
    }
  }
  return times.map(median);
}

interface MemoryFigures {
  rows: number;
  maxRssMb: number;
  peakHeapMb: number;
  baselineRssMb: number;
}

/** Child-process side: parse one file and report peak memory. */
async function measureMemoryInThisProcess(file: string): Promise<void> {
  const baselineRss = process.resourceUsage().maxRSS;
  let peakHeap = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 2);
  const result = await parsePassengerSheet(readFileSync(file), { flightId: 1, limits: LIMITS, today: TODAY });
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  clearInterval(sampler);
  const figures: MemoryFigures = {
    rows: result.records.length,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    peakHeapMb: peakHeap / 1024 / 1024,
    baselineRssMb: baselineRss / 1024,
  };
  process.stdout.write(JSON.stringify(figures));
}

const MEMORY_PROCESSES = 3;

/** The median (by peak RSS) of a few fresh processes: when V8 collects varies from one to the next. */
function measureMemoryInChild(file: string): MemoryFigures {
  const runs = Array.from({ length: MEMORY_PROCESSES }, () => {
    const output = execFileSync(process.execPath, [__filename, '--memory', file], { encoding: 'utf8' });
    return JSON.parse(output) as MemoryFigures;
  }).sort((a, b) => a.maxRssMb - b.maxRssMb);
  return runs[Math.floor(runs.length / 2)];
}

export interface SheetBenchResult {
  rawMs: number;
  rawReorderedMs: number;
  parseMs: number;
  parse50kMs: number;
  memory10k: MemoryFigures;
  memory50k: MemoryFigures;
  fileBytes10k: number;
  fileBytes50k: number;
  /** One-minute load average when the run started. */
  load: number;
}

export async function runSheetBench(): Promise<SheetBenchResult> {
  const load = os.loadavg()[0];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sheet-bench-'));
  try {
    const file10k = path.join(dir, 'passengers-10k.xlsx');
    const file50k = path.join(dir, 'passengers-50k.xlsx');
    await writeBenchWorkbook(file10k, 10_000);
    await writeBenchWorkbook(file50k, 50_000);
    const bytes = readFileSync(file10k);
    const reordered = sharedStringsFirst(bytes);
    const options = { flightId: 1, limits: LIMITS, today: TODAY };

    const [rawMs, rawReorderedMs, parseMs] = await timeInTurns(REPETITIONS, [
      () => rawExceljsRead(bytes),
      () => rawExceljsRead(reordered),
      () => parsePassengerSheet(bytes, options),
    ]);
    const bytes50k = readFileSync(file50k);
    const [parse50kMs] = await timeInTurns(2, [() => parsePassengerSheet(bytes50k, options)]);
    return {
      rawMs,
      rawReorderedMs,
      parseMs,
      parse50kMs,
      memory10k: measureMemoryInChild(file10k),
      memory50k: measureMemoryInChild(file50k),
      fileBytes10k: bytes.length,
      fileBytes50k: bytes50k.length,
      load,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fixed = (n: number, digits = 0) => n.toFixed(digits);

/** The README section: one column per run (the machine is shared, so runs spread). */
export function formatSheetBench(results: SheetBenchResult | SheetBenchResult[], date: string): string {
  const runs = Array.isArray(results) ? results : [results];
  const row = (label: string, cell: (r: SheetBenchResult) => string) => `| ${label} | ${runs.map(cell).join(' | ')} |`;
  const first = runs[0];
  return [
    '## Passenger spreadsheet parsing',
    '',
    '`bench/sheet.bench.ts` (`runSheetBench()`; alone: `npx tsc -p tsconfig.build.json && node dist/bench/sheet.bench.js`,',
    'add `--runs=3 --write-readme` to refresh this section). Files of 10,000 and 50,000 passengers written by the',
    'exceljs streaming writer the way Excel stores them (shared strings after the worksheets, date-formatted',
    `cells), 14 columns, half the rows with a phone number (10,000 rows: ${fixed(first.fileBytes10k / 1024)} KiB;`,
    `50,000 rows: ${fixed(first.fileBytes50k / 1024)} KiB). Times are medians of ${REPETITIONS} repetitions after a warm-up, (a), (a′) and (b) taking turns`,
    '(50,000 rows: of 2). (a) visits every cell with exceljs\'s `WorkbookReader` and does nothing else; (a′) is the',
    'same on a copy whose parts are reordered shared strings first, so exceljs need not spool the worksheet to a',
    'temporary file (what `parsePassengerSheet` does internally); (b) is `parsePassengerSheet` on the original file.',
    'The normalisers remember recent results (countries, codes, names, dates), so after the warm-up they are warm,',
    'as in a running server. Memory: each parse runs in a fresh `node` process, three times per size (the',
    'median by peak RSS is shown); peak RSS is `process.resourceUsage().maxRSS`, peak heap is `heapUsed` sampled',
    'every 2 ms.',
    '',
    `Machine: ${os.cpus().length} cores, Node ${process.version}, exceljs 4.4.0, ${date}. ${runs.length} consecutive run${runs.length > 1 ? 's' : ''}; other work`,
    `was running on the machine (load average ${runs.map((r) => r.load.toFixed(1)).join(', ')} at the start of each), hence the spread.`,
    '',
    `| Measure | ${runs.map((_, i) => `Run ${i + 1}`).join(' | ')} |`,
    `|---|${runs.map(() => '---|').join('')}`,
    row('(a) exceljs alone, 10,000 rows, file as written', (r) => `${fixed(r.rawMs)} ms`),
    row('(a′) exceljs alone, 10,000 rows, shared strings first', (r) => `${fixed(r.rawReorderedMs)} ms`),
    row('(b) `parsePassengerSheet`, 10,000 rows', (r) => `${fixed(r.parseMs)} ms`),
    row('ratio b / a (target ≤ 1.3)', (r) => fixed(r.parseMs / r.rawMs, 2)),
    row('ratio b / a′ (stricter)', (r) => fixed(r.parseMs / r.rawReorderedMs, 2)),
    row('`parsePassengerSheet`, 50,000 rows', (r) => `${fixed(r.parse50kMs)} ms`),
    row('peak RSS, 10,000 rows', (r) => `${fixed(r.memory10k.maxRssMb)} MiB`),
    row('peak RSS, 50,000 rows', (r) => `${fixed(r.memory50k.maxRssMb)} MiB`),
    row('ratio of peak RSS 50k / 10k (target ≤ 1.5)', (r) => fixed(r.memory50k.maxRssMb / r.memory10k.maxRssMb, 2)),
    row('RSS before parsing (modules loaded, file read)', (r) => `${fixed(r.memory10k.baselineRssMb)} / ${fixed(r.memory50k.baselineRssMb)} MiB`),
    row('peak heap used, 10,000 / 50,000 rows', (r) => `${fixed(r.memory10k.peakHeapMb)} / ${fixed(r.memory50k.peakHeapMb)} MiB`),
    '',
    'Reading: most of what `parsePassengerSheet` adds to exceljs is phone validation (libphonenumber-js',
    'builds its regular expressions on every call; with phone validation switched off, b / a measured about 1.05',
    'while optimising). The parser inflates each part once itself, counting bytes against the zip directory and',
    'checking CRCs, and hands exceljs the shared strings first: that pays for the extra work over (a). The records are',
    'what grows with the list (about 400 bytes each once parsed); V8 lets the heap run to a few times the live',
    'data between full collections, so the 50,000-row peak is bimodal: about 130 MiB when a full collection runs',
    'just before the peak, about 175 MiB when it does not (ratios 1.1 or 1.5). Over the runs made while',
    'optimising on this shared machine, b / a ranged from 1.04 to 1.58 and the RSS ratio from 1.09 to 1.55.',
    '',
  ].join('\n');
}

/** Replaces (or appends) this bench's section of bench/README.md, leaving other sections alone. */
export function writeSheetBenchSection(readme: string, section: string): void {
  let current = '';
  try {
    current = readFileSync(readme, 'utf8');
  } catch {
    current = '# Benchmarks\n';
  }
  const heading = '## Passenger spreadsheet parsing';
  const start = current.indexOf(heading);
  let next: string;
  if (start < 0) {
    next = `${current.trimEnd()}\n\n${section}`;
  } else {
    const after = current.indexOf('\n## ', start + heading.length);
    next = `${current.slice(0, start)}${section}${after < 0 ? '' : `\n${current.slice(after + 1)}`}`;
  }
  writeFileSync(readme, next.endsWith('\n') ? next : `${next}\n`);
}

async function main(args: string[]): Promise<void> {
  const runCount = Number(/^--runs=(\d+)$/.exec(args.find((a) => a.startsWith('--runs=')) ?? '')?.[1] ?? 1);
  const runs: SheetBenchResult[] = [];
  for (let i = 0; i < runCount; i += 1) runs.push(await runSheetBench());
  const section = formatSheetBench(runs, new Date().toISOString().slice(0, 10));
  console.log(section);
  if (args.includes('--write-readme')) writeSheetBenchSection(path.resolve('bench/README.md'), section);
}

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args[0] === '--memory') void measureMemoryInThisProcess(args[1]);
  else void main(args);
}
