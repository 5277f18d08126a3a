import { parsePassengerSheet, type PassengerSheetOptions } from '../../../src/passengers/sheet/parse-passenger-sheet';
import { PassengerSheetError } from '../../../src/passengers/sheet/sheet-error';
import { heapGrowth } from '../../helpers/heap-growth';
import { buildPassengerCsv, buildPassengerOds, csvOf, odsContent, odsPackage, odsRow } from '../../helpers/passenger-formats';
import { ENGLISH_HEADINGS, FIELDS, passenger, storedOrDeflated, zerosPart } from '../../helpers/passenger-workbook';

/** The hostile-file guarantees of the .xlsx reader, held by the CSV and .ods readers: each refused early, by the limit it reaches. */
// The parse-time limit is raised so that each file meets the limit under test, also on a loaded machine
// (at load 26 the huge .ods passed the default 10 s first); the time limit has its own tests.
const LIMITS = {
  uploadMaxBytes: 5 * 1024 * 1024,
  uploadMaxRows: 2000,
  uploadMaxColumns: 64,
  uploadMaxUncompressedBytes: 50 * 1024 * 1024,
  uploadMaxParseMs: 120_000,
};
const HEAP_PEAK_BOUND = 24 * 1024 * 1024;
const HEAP_RETAINED_BOUND = 4 * 1024 * 1024;
const HEADINGS = FIELDS.map((f) => ENGLISH_HEADINGS[f]);
const HEADER = odsRow(HEADINGS);
const marioCells = FIELDS.map((f) => passenger()[f] ?? null);

async function refusal(file: Buffer, options: Partial<PassengerSheetOptions> = {}): Promise<PassengerSheetError> {
  const error = await parsePassengerSheet(file, { flightId: 1, limits: LIMITS, ...options }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof PassengerSheetError)) throw new Error(`expected a PassengerSheetError, got ${String(error)}`);
  return error;
}

/**
 * Refused with `status` and a message matching `message`, the cells never built: what the refusal
 * holds alive at once stays under what a real list costs (the refusals here hold at most 1.2 MB;
 * the 2.4 million cells of the huge .ods, built, would take hundreds), and nothing is left behind.
 */
async function refusedCheaply(file: Buffer, status: number, message: RegExp | string): Promise<void> {
  const { result: error, peakLiveBytes, retainedBytes } = await heapGrowth(() => refusal(file));
  expect(peakLiveBytes).toBeLessThan(HEAP_PEAK_BOUND);
  expect(retainedBytes).toBeLessThan(HEAP_RETAINED_BOUND);
  expect(error.status).toBe(status);
  if (typeof message === 'string') expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
}

describe('parsePassengerSheet: hostile CSV files', () => {
  it('refuses 5 MiB of separators (millions of empty cells) by the cell limit (413)', async () => {
    const line = `${','.repeat(99)}\n`;
    const bomb = Buffer.from(`${HEADINGS.join(',')}\n${line.repeat(Math.floor((5 * 1024 * 1024 - 200) / line.length))}`);
    expect(bomb.length).toBeLessThanOrEqual(LIMITS.uploadMaxBytes);
    await refusedCheaply(bomb, 413, /^The workbook has more than 200000 cells and rows in the sheets read \(the limit UPLOAD_MAX_CELLS\)/);
  });

  it('refuses a row of more cells than a sheet has columns (422)', async () => {
    await refusedCheaply(Buffer.from(`${HEADINGS.join(',')}\n${'x,'.repeat(20_000)}\n`), 422, 'Sheet row 2 has more than 16384 cells, more than a sheet has columns');
  });

  it('refuses a giant quoted cell, closed or never closed, before parsing it', async () => {
    const unclosed = Buffer.from(`${HEADINGS.join(',')}\nRossi,"${'A'.repeat(4 * 1024 * 1024)}\n`);
    await refusedCheaply(unclosed, 422, 'Sheet row 2, column 2 holds a text longer than 32767 characters, the most a cell can hold in Excel; the file was not read');
    const closed = Buffer.from(`${HEADINGS.join(',')}\nRossi,"${'A""\n'.repeat(1024 * 1024)}"\n`);
    await refusedCheaply(closed, 422, 'Sheet row 2, column 2 holds a text longer than 32767 characters, the most a cell can hold in Excel; the file was not read');
    const manyLong = Buffer.from(`${HEADINGS.join(',')}\n${`"${'A'.repeat(30_000)}",`.repeat(40)}\n`);
    await refusedCheaply(manyLong, 422, 'Row 2 of the CSV file holds more than 1048576 characters; no spreadsheet program writes one, so the file was not read');
  });

  it('refuses a cell longer than Excel allows (422)', async () => {
    const file = Buffer.from(csvOf([HEADINGS, ['Rossi', 'A'.repeat(40_000)]]));
    await refusedCheaply(file, 422, 'Sheet row 2, column 2 holds a text longer than 32767 characters, the most a cell can hold in Excel; the file was not read');
  });

  it('keeps the row and column limits of the .xlsx', async () => {
    const rows = Array.from({ length: 4 }, (_, i) => passenger({ numberdoc: `YA${i}` }));
    const tooMany = await refusal(buildPassengerCsv(rows), { limits: { ...LIMITS, uploadMaxRows: 3 } });
    expect([tooMany.status, tooMany.message]).toEqual([413, 'The list has more than 3 passenger rows (the limit); split it into smaller lists']);
    const wide = Buffer.from(csvOf([HEADINGS, [...marioCells.map((c) => (c instanceof Date ? '17/05/1980' : String(c ?? ''))), '', 'note']]));
    const beyond = await refusal(wide, { limits: { ...LIMITS, uploadMaxColumns: 15 } });
    expect([beyond.status, beyond.message]).toEqual([422, 'Sheet row 2 has a value in column P (column 16); at most 15 columns are accepted']);
  });

  it('stops at the wall-time cap (413), a CSV and an .ods alike', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => passenger({ numberdoc: `YA${i}` }));
    for (const file of [buildPassengerCsv(rows), buildPassengerOds(rows)]) {
      const error = await refusal(file, { limits: { ...LIMITS, uploadMaxParseMs: 0 } });
      expect([error.status, error.message]).toEqual([413, 'Reading the workbook took longer than 0 ms (the limit UPLOAD_MAX_PARSE_MS); it holds far more than a passenger list']);
    }
  });

  it('stops when the caller aborts, rejecting with the reason', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => passenger({ numberdoc: `YA${i}` }));
    const controller = new AbortController();
    const parsing = parsePassengerSheet(buildPassengerCsv(rows), { flightId: 1, limits: LIMITS, signal: controller.signal });
    const reason = new Error('client went away');
    controller.abort(reason);
    await expect(parsing).rejects.toBe(reason);
  });
});

describe('parsePassengerSheet: hostile .ods files', () => {
  it('refuses a zip bomb in content.xml from the zip directory, before inflating (413)', async () => {
    const bomb = odsPackage(await zerosPart('content.xml', 60 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(200 * 1024);
    await refusedCheaply(bomb, 413, /^The workbook expands to \d+ bytes when decompressed, over the limit of 52428800 bytes$/);
  });

  it('stops inflating a content.xml that expands beyond its declared size (413)', async () => {
    const liar = { ...(await zerosPart('content.xml', 8 * 1024 * 1024)), size: 4000 };
    await refusedCheaply(
      odsPackage(liar),
      413,
      'The workbook part content.xml expands beyond the 4000 bytes its zip header declares; it looks like a zip bomb and was not read',
    );
  });

  it('refuses a huge sheet by the cell limit as it streams (413)', async () => {
    // Values beside the list, in a column without heading: no passenger row, only cells to count.
    const row = odsRow([{ xml: '<table:table-cell table:number-columns-repeated="15"/>' }, 'x']);
    const huge = odsPackage(odsContent([{ name: 'Huge', rows: HEADER + row.repeat(150_000) }]));
    await refusedCheaply(huge, 413, /^The workbook has more than 200000 cells and rows in the sheets read/);
  });

  it('expands a repeated cell or row that holds a value only as far as the limits let it', async () => {
    const wideCell = '<table:table-cell office:value-type="string" table:number-columns-repeated="1000000000"><text:p>x</text:p></table:table-cell>';
    await refusedCheaply(
      odsPackage(odsContent([{ name: 'List', rows: HEADER + odsRow([{ xml: wideCell }]) }])),
      422,
      'Sheet row 2 has more than 16384 cells, more than a sheet has columns',
    );
    const tallRow = odsRow(marioCells, ' table:number-rows-repeated="1000000000"');
    await refusedCheaply(odsPackage(odsContent([{ name: 'List', rows: HEADER + tallRow }])), 413, /^The list has more than 2000 passenger rows|^The workbook has more than 200000 cells/);
  });

  it('bounds the spaces a text:s may add, and refuses a cell longer than Excel allows (422)', async () => {
    const spaces = '<text:s text:c="1000000000"/>'.repeat(3);
    const cell = { xml: `<table:table-cell office:value-type="string"><text:p>a${spaces}b</text:p></table:table-cell>` };
    await refusedCheaply(
      odsPackage(odsContent([{ name: 'List', rows: HEADER + odsRow(['Rossi', cell]) }])),
      422,
      'Sheet row 2, column 2 holds a text longer than 32767 characters, the most a cell can hold in Excel; the file was not read',
    );
  });

  it('refuses deep nesting in content.xml (422)', async () => {
    const deep = `${'<a>'.repeat(100)}${'</a>'.repeat(100)}`;
    const file = odsPackage(odsContent([{ name: 'List', rows: HEADER + odsRow([{ xml: `<table:table-cell>${deep}</table:table-cell>` }]) }]));
    await refusedCheaply(file, 422, 'The workbook part content.xml nests XML elements more than 64 levels deep; no spreadsheet program writes that, so the file was not read');
  });

  it('reads a list whose content.xml is stored rather than deflated', async () => {
    const stored = storedOrDeflated('content.xml', Buffer.from(odsContent([{ name: 'List', rows: HEADER + odsRow(marioCells) }])), 0);
    const { records } = await parsePassengerSheet(odsPackage(stored), { flightId: 1, limits: LIMITS });
    expect(records).toHaveLength(1);
    expect((await parsePassengerSheet(buildPassengerOds([passenger()]), { flightId: 1, limits: LIMITS })).records).toEqual(records);
  });
});
