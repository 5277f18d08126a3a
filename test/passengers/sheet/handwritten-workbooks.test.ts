import zlib from 'node:zlib';
import {
  parsePassengerSheet,
  type PassengerSheetOptions,
  type PassengerSheetResult,
} from '../../../src/passengers/sheet/parse-passenger-sheet';
import { PassengerSheetError } from '../../../src/passengers/sheet/sheet-error';
import {
  ENGLISH_HEADINGS,
  FIELDS,
  parsedPassenger,
  passenger,
  rawPassengerRows,
  rawRow,
  rawWorkbook,
  readZip,
  storedOrDeflated,
  withPart,
  writeZip,
  xmlEscape,
  type PassengerCells,
  type RawCell,
} from '../../helpers/passenger-workbook';

/**
 * Workbooks whose SpreadsheetML is written here by hand, as writers other than exceljs write it
 * (issue 13): each idiom must read right, each hostile shape must be refused cheaply, naming the limit.
 */

const LIMITS = { uploadMaxBytes: 5 * 1024 * 1024, uploadMaxRows: 2000, uploadMaxColumns: 64, uploadMaxUncompressedBytes: 50 * 1024 * 1024 };
const TODAY = new Date(Date.UTC(2026, 10, 21));
const MARIO = parsedPassenger(4711);

function parse(file: Buffer, options: Partial<PassengerSheetOptions> = {}): Promise<PassengerSheetResult> {
  return parsePassengerSheet(file, { flightId: 4711, limits: LIMITS, today: TODAY, ...options });
}

async function refusal(file: Buffer, options: Partial<PassengerSheetOptions> = {}): Promise<PassengerSheetError> {
  const error = await parse(file, options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof PassengerSheetError)) throw new Error(`expected a PassengerSheetError, got ${String(error)}`);
  return error;
}

/** A one-sheet workbook of `passengers`, dates as serial numbers unless told. */
function simpleWorkbook(passengers: PassengerCells[], options: Parameters<typeof rawPassengerRows>[1] = {}) {
  return rawWorkbook({ sheets: [{ name: 'Passengers', rows: rawPassengerRows(passengers, { dates: 'serial', ...options }) }] });
}

describe('hand-written workbooks: values read right', () => {
  it('reads t="d" cells (ISO 8601 dates) as the day written, not as serial numbers', async () => {
    const file = simpleWorkbook(
      [passenger({ date_born: { xml: ' t="d"><v>1980-05-17T00:00:00</v>' } as RawCell as never, scadenza: { xml: ' t="d"><v>2031-05-16</v>' } as RawCell as never })],
    );
    expect((await parse(file)).records).toEqual([MARIO]);
  });

  /**
   * A workbook whose `text` (the surname) has its first multi-byte character straddle byte
   * `boundary` of the part that holds it (stored, so chunks are cut at fixed offsets): filler texts
   * before it (five, each within a cell's 32,767 characters) are sized to put it there.
   */
  function straddling(text: string, boundary: number, sharedStrings: boolean): Buffer {
    const PIECES = 5;
    const build = (filler: number) => {
      const pieces = Array.from({ length: PIECES }, (_, i) => 'x'.repeat(Math.floor(filler / PIECES) + (i < filler % PIECES ? 1 : 0)));
      const items = sharedStrings ? [...pieces, xmlEscape(text)].map((t) => `<t>${t}</t>`) : undefined;
      const surname: RawCell = sharedStrings ? { xml: ` t="s"><v>${PIECES}</v>` } : text;
      const titles = pieces.map((piece, i) => rawRow(i + 1, [sharedStrings ? { xml: ` t="s"><v>${i}</v>` } : piece])).join('');
      const rows = titles + rawPassengerRows([passenger({ surname } as PassengerCells)], { first: PIECES + 1, dates: 'serial' });
      return { items, rows };
    };
    const firstWide = [...text].findIndex((char) => Buffer.byteLength(char) > 1);
    const prefix = Buffer.byteLength([...text].slice(0, firstWide).join(''));
    const offsetIn = (filler: number) => {
      const { items, rows } = build(filler);
      const file = rawWorkbook({ sheets: [{ name: 'Passengers', rows }], sharedStrings: items, stored: true });
      const part = readZip(file).find((p) => p.name === (sharedStrings ? 'xl/sharedStrings.xml' : 'xl/worksheets/sheet1.xml'))!;
      return { file, at: part.compressed.indexOf(Buffer.from(text)) + prefix };
    };
    const filler = boundary - 1 - offsetIn(0).at; // the filler is ASCII: one byte per character
    const { file, at } = offsetIn(filler);
    expect(at).toBe(boundary - 1); // the character's first byte ends one chunk, the rest starts the next
    return file;
  }

  it.each([
    ['an inline string, 2-byte character', 'GÖSSMANN', false, 65_536],
    ['an inline string, 3-byte character', 'NGUYỄN', false, 131_072],
    ['a shared string, 2-byte character', 'GÖSSMANN', true, 65_536],
    ['a shared string, 3-byte character', 'NGUYỄN', true, 131_072],
  ])('joins a character split across two chunks of a part (%s)', async (_what, surname, shared, boundary) => {
    const { records } = await parse(straddling(surname, boundary, shared));
    expect(records[0].surname).toBe(surname);
    expect(records[0].surname).not.toContain('\uFFFD');
  });

  it('leaves out phonetic runs (<rPh>) of shared and inline strings', async () => {
    const file = rawWorkbook({
      sheets: [
        {
          name: 'Passengers',
          rows: rawPassengerRows(
            [
              passenger({
                surname: { xml: ' t="s"><v>0</v>' } as never,
                name: { xml: ' t="inlineStr"><is><r><t>Ma</t></r><r><t>rio</t></r><rPh sb="0" eb="2"><t>PHON</t></rPh></is>' } as never,
              }),
            ],
            { dates: 'serial' },
          ),
        },
      ],
      sharedStrings: ['<r><t>MÜL</t></r><r><rPr><b/></rPr><t>LER</t></r><rPh sb="0" eb="6"><t>PHON</t></rPh><phoneticPr fontId="1"/>'],
    });
    const { records } = await parse(file);
    expect(records[0]).toMatchObject({ surname: 'MÜLLER', name: 'MARIO' });
  });
});

describe('hand-written workbooks: numbers read as their cell formats show them', () => {
  const serial = (year: number, month: number, day: number) => (Date.UTC(year, month - 1, day) - Date.UTC(1899, 11, 30)) / 86_400_000;
  const cell = (s: number | undefined, value: number) => ({ xml: `${s === undefined ? '' : ` s="${s}"`}><v>${value}</v>` }) as RawCell as never;
  /**
   * Cell formats 0 General, 1 built-in date 14, 2 `000000000`, 3 `dd/mm/yyyy` (with a child), 4
   * `"No. "0`, 5 built-in time 20; a date in the cell styles and a year in a conditional format,
   * which are no cell's format and must shift nothing.
   */
  const styles = (p = '') =>
    `<${p}numFmts count="3"><${p}numFmt numFmtId="164" formatCode="000000000"/><${p}numFmt numFmtId="165" formatCode="dd/mm/yyyy"/><${p}numFmt numFmtId="166" formatCode="&quot;No. &quot;0"/></${p}numFmts>` +
    `<${p}cellStyleXfs count="1"><${p}xf numFmtId="14"/></${p}cellStyleXfs>` +
    `<${p}cellXfs count="6"><${p}xf numFmtId="0"/><${p}xf numFmtId="14"/><${p}xf numFmtId="164" applyNumberFormat="1"/><${p}xf numFmtId="165"><${p}alignment horizontal="left"/></${p}xf><${p}xf numFmtId="166"/><${p}xf numFmtId="20"/></${p}cellXfs>` +
    `<${p}dxfs count="1"><${p}dxf><${p}numFmt numFmtId="164" formatCode="yyyy"/></${p}dxf></${p}dxfs>`;
  const formatted = passenger({ date_born: cell(3, serial(1980, 5, 17)), scadenza: cell(1, serial(2031, 5, 16)), numberdoc: cell(2, 12345678) });

  it('reads a day from a number in a date format (built-in or custom) and the leading zeros of a format of zeros, from the styles part the relationships name', async () => {
    const file = rawWorkbook({ styles: styles(), sheets: [{ name: 'Passengers', rows: rawPassengerRows([formatted]) }] });
    expect((await parse(file)).records).toEqual([{ ...MARIO, numberdoc: '012345678' }]);
    const prefixed = rawWorkbook({
      prefix: 'x',
      styles: styles('x:'),
      stylesPart: 'xl/Stili/Custom.xml',
      absoluteTargets: true,
      sheets: [{ name: 'Passengers', rows: rawPassengerRows([formatted], { p: 'x:' }) }],
    });
    expect((await parse(prefixed)).records).toEqual([{ ...MARIO, numberdoc: '012345678' }]);
  });

  it('refuses a number in a date column whose cell is not formatted as a date, naming the cell and what to do', async () => {
    const advice = 'which is not a date (the cell is not formatted as a date); write the date as YYYY-MM-DD (or DD/MM/YYYY), or format the cell as a date';
    const file = rawWorkbook({
      styles: styles(),
      sheets: [
        {
          name: 'Passengers',
          rows: rawPassengerRows([
            passenger({ date_born: cell(0, 1980) }),
            passenger({ date_born: cell(4, 29358) }),
            passenger({ date_born: cell(undefined, 29358) }),
            passenger({ scadenza: cell(99, 47984) }),
          ]),
        },
      ],
    });
    const error = await refusal(file);
    expect(error.status).toBe(422);
    expect(error.details.map((d) => [d.row_number, d.sheet_row, d.column, d.value, d.message])).toEqual([
      [1, 2, 'Date of birth', 1980, `Date of birth: cell C2 holds the number 1980, ${advice}`],
      [2, 3, 'Date of birth', 29358, `Date of birth: cell C3 holds the number 29358, ${advice}`],
      [3, 4, 'Date of birth', 29358, `Date of birth: cell C4 holds the number 29358, ${advice}`],
      [4, 5, 'Expiry date', 47984, `Expiry date: cell H5 holds the number 47984, ${advice}`],
    ]);
    const withoutStyles = rawWorkbook({ styles: false, sheets: [{ name: 'Passengers', rows: rawPassengerRows([passenger()], { dates: 'serial' }) }] });
    expect((await refusal(withoutStyles)).details.map((d) => d.message)).toEqual([
      `Date of birth: cell C2 holds the number 29358, ${advice}`,
      `Expiry date: cell H2 holds the number 47984, ${advice}`,
    ]);
  });

  it('says why a time of day and a date format that shows no day are not read', async () => {
    const file = rawWorkbook({ styles: styles(), sheets: [{ name: 'Passengers', rows: rawPassengerRows([passenger({ date_born: cell(5, 0.5), scadenza: cell(1, -1) })]) }] });
    const error = await refusal(file);
    expect(error.details.map((d) => [d.column, d.value, d.message])).toEqual([
      ['Date of birth', '0.5', expect.stringMatching(/^Date of birth: the cell is formatted as a time of day \(its number is 0\.5\), and no passenger field holds a time/)],
      ['Expiry date', '-1', expect.stringMatching(/^Expiry date: the cell is formatted as a date but holds the number -1, which is no day of the calendar/)],
    ]);
  });
});

describe('hand-written workbooks: parent rows cross-checked', () => {
  const ADULT = { is_carring_infant: 'no' };

  it('refuses an infant linked by the spreadsheet row number to an adult who carries no infant, and says which number to write', async () => {
    // Sheet rows: 1 header, 2 MARIO (carries an infant), 3 ANNA (does not), 4 GIULIA, 5 the infant naming 2: MARIO's sheet row, ANNA's passenger number.
    const file = simpleWorkbook([
      passenger({ is_carring_infant: 'yes' }),
      passenger({ name: 'Anna', gender: 'F', numberdoc: 'YA2', ...ADULT }),
      passenger({ name: 'Giulia', gender: 'F', numberdoc: 'YA3', ...ADULT }),
      passenger({ name: 'Luca', date_born: '01/06/2025', numberdoc: 'YA4', row_number_parent_id: 2, ...ADULT }),
    ]);
    const error = await refusal(file);
    expect(error.status).toBe(422);
    expect(error.details).toEqual([
      {
        row_number: 4,
        sheet_row: 5,
        field: 'Parent row',
        column: 'Parent row',
        value: 2,
        message:
          'Parent row: this passenger is an infant (1 year old today (2026-11-21)) but passenger row 2 (Rossi Anna) is not marked in "With infant" as carrying an infant. Is 2 the spreadsheet\'s row number? Sheet row 2 is passenger 1: write the passenger number, counted from 1 below the header',
      },
    ]);
  });

  it('refuses an adult who names an accompanying adult, and a minor named as the adult', async () => {
    const file = simpleWorkbook([
      passenger(),
      passenger({ name: 'Anna', numberdoc: 'YA2', row_number_parent_id: 1 }),
      passenger({ name: 'Sara', date_born: '01/01/2012', numberdoc: 'YA3' }),
      passenger({ name: 'Luca', date_born: '01/01/2015', numberdoc: 'YA4', row_number_parent_id: 3 }),
    ]);
    const error = await refusal(file);
    expect(error.details.map((d) => [d.row_number, d.message])).toEqual([
      [2, 'Parent row: this passenger is 46 years old today (2026-11-21): only an infant or a minor travels with an accompanying adult'],
      [4, 'Parent row: passenger row 3 (Rossi Sara) is 14 years old today (2026-11-21) and cannot be the accompanying adult. Is 3 the spreadsheet\'s row number? Sheet row 3 is passenger 2: write the passenger number, counted from 1 below the header'],
    ]);
  });

  it('judges ages on the departure day when it is given', async () => {
    // Born 2008-12-01: 17 today (2026-11-21), 18 on a departure of 2026-12-15.
    const file = simpleWorkbook([passenger(), passenger({ name: 'Luca', date_born: '01/12/2008', numberdoc: 'YA2', row_number_parent_id: 1 })]);
    expect((await parse(file)).records[1].row_number_parent_id).toBe(1);
    const error = await refusal(file, { departure: new Date(Date.UTC(2026, 11, 15)) });
    expect(error.details).toEqual([
      expect.objectContaining({
        row_number: 2,
        message: 'Parent row: this passenger is 18 years old at departure (2026-12-15): only an infant or a minor travels with an accompanying adult',
      }),
    ]);
  });

  it('refuses two infants carried by one adult, and warns of an adult marked as carrying an infant no row names', async () => {
    const twins = simpleWorkbook([
      passenger({ is_carring_infant: 'yes' }),
      passenger({ name: 'Luca', date_born: '01/06/2025', numberdoc: 'YA2', row_number_parent_id: 1, ...ADULT }),
      passenger({ name: 'Lia', date_born: '01/06/2025', numberdoc: 'YA3', row_number_parent_id: 1, ...ADULT }),
    ]);
    expect((await refusal(twins)).details).toEqual([
      expect.objectContaining({
        row_number: 3,
        message: 'Parent row: passenger row 1 (Rossi Mario) already carries the infant in passenger row 2; an adult carries one infant',
      }),
    ]);
    const alone = simpleWorkbook([passenger({ is_carring_infant: 'yes' }), passenger({ name: 'Anna', numberdoc: 'YA2' })]);
    const { records, warnings } = await parse(alone);
    expect(records).toHaveLength(2);
    expect(warnings).toEqual([
      'passenger row 1 (Rossi Mario) is marked in "With infant" as carrying an infant, but no infant on the list names row 1 in "Parent row"',
    ]);
  });
});

describe('hand-written workbooks: valid layouts read', () => {
  const rows = (options = {}) => rawPassengerRows([passenger()], { dates: 'serial', ...options });

  it('reads elements with the x: namespace prefix (ClosedXML, Open XML SDK)', async () => {
    const file = rawWorkbook({
      prefix: 'x',
      sheets: [{ name: 'Passengers', rows: rawPassengerRows([passenger({ surname: { xml: ' t="s"><x:v>0</x:v>' } as never })], { p: 'x:', dates: 'serial' }) }],
      sharedStrings: ['<x:t>Rossi</x:t>'],
    });
    expect((await parse(file)).records).toEqual([MARIO]);
  });

  it('reads rows and cells written without r= (and rows with s="0" customFormat="1")', async () => {
    const noRefs = rawWorkbook({ sheets: [{ name: 'Passengers', rows: rows({ refs: false }) }] });
    expect((await parse(noRefs)).records).toEqual([MARIO]);
    const styled = rawWorkbook({ sheets: [{ name: 'Passengers', rows: rows().replace(/<row r="(\d+)">/g, '<row r="$1" s="0" customFormat="1">') }] });
    expect((await parse(styled)).records).toEqual([MARIO]);
  });

  it('finds the workbook through _rels/.rels, with odd part names, absolute targets and a shared strings part that is named but absent', async () => {
    const file = rawWorkbook({
      workbookPart: 'xl/Cartella.xml',
      absoluteTargets: true,
      sheets: [{ name: 'Foglio1', rows: rows(), part: 'xl/worksheets/Foglio1.xml' }],
      sharedStringsPart: 'xl/SharedStrings.xml',
      sharedStringsMissing: true,
    });
    expect((await parse(file)).records).toEqual([MARIO]);
  });

  it('matches part names without regard to case', async () => {
    const file = rawWorkbook({
      sheets: [{ name: 'P', rows: rawPassengerRows([passenger({ surname: { xml: ' t="s"><v>0</v>' } as never })], { dates: 'serial' }) }],
      sharedStrings: ['<t>Rossi</t>'],
    });
    const renamed = readZip(file).map((part) => (part.name === 'xl/sharedStrings.xml' ? { ...part, name: 'xl/SharedStrings.xml' } : part));
    expect((await parse(writeZip(renamed))).records).toEqual([MARIO]);
  });

  it('reads Strict OOXML (other namespaces, dates as ISO 8601 t="d" cells)', async () => {
    const file = rawWorkbook({ strict: true, sheets: [{ name: 'Passengers', rows: rows({ dates: 'iso' }) }] });
    expect((await parse(file)).records).toEqual([MARIO]);
  });

  it('joins every run of inline rich text, in the header row too', async () => {
    const rich = (parts: string[]) => ({ xml: ` t="inlineStr"><is>${parts.map((t) => `<r><rPr><b/></rPr><t>${t}</t></r>`).join('')}</is>` });
    const headings = FIELDS.map((f) => (f === 'surname' ? rich(['Sur', 'name']) : ENGLISH_HEADINGS[f]));
    const data = FIELDS.map((f) => (f === 'surname' ? rich(['Ro', 'ssi']) : (passenger() as Record<string, RawCell>)[f] ?? null));
    const file = rawWorkbook({ sheets: [{ name: 'Passengers', rows: rawRow(1, headings) + rawRow(2, data, { dates: 'serial' }) }] });
    expect((await parse(file)).records).toEqual([MARIO]);
  });

  it('reads serial numbers in the 1904 date system, and ISO dates in it unshifted', async () => {
    // 1980-05-17 is 27896 days after 1904-01-01; 2031-05-16 is 46522. Cell format 1 is a date.
    const serial = (days: number) => ({ xml: ` s="1"><v>${days}</v>` }) as RawCell as never;
    const file = rawWorkbook({
      workbookPr: '<workbookPr date1904="true"/>',
      sheets: [{ name: 'Passengers', rows: rawPassengerRows([passenger({ date_born: serial(27896), scadenza: serial(46522) })]) }],
    });
    expect((await parse(file)).records).toEqual([MARIO]);
    const iso = rawWorkbook({ workbookPr: '<workbookPr date1904="1"/>', sheets: [{ name: 'Passengers', rows: rawPassengerRows([passenger()]) }] });
    expect((await parse(iso)).records).toEqual([MARIO]);
  });

  it('fills merged blocks declared after more than one chunk of rows', async () => {
    const family = Array.from({ length: 800 }, (_, i) => passenger({ surname: i % 2 === 0 ? 'Rossi' : null, numberdoc: `YA${i}` }));
    // Surnames merged down pairs of rows: A2:A3, A4:A5, …
    const merges = Array.from({ length: 400 }, (_, i) => `<mergeCell ref="A${2 * i + 2}:A${2 * i + 3}"/>`).join('');
    const file = rawWorkbook({
      stored: true,
      sheets: [{ name: 'Passengers', rows: rawPassengerRows(family, { dates: 'serial' }), tail: `<mergeCells count="400">${merges}</mergeCells>` }],
    });
    expect(readZip(file).find((part) => part.name === 'xl/worksheets/sheet1.xml')!.size).toBeGreaterThan(3 * 65_536);
    const { records } = await parse(file);
    expect(records).toHaveLength(800);
    expect(records.every((record) => record.surname === 'ROSSI')).toBe(true);
  });

  it('says a formula written without a value (openpyxl) was never calculated, and how to fix it', async () => {
    const file = simpleWorkbook([passenger({ surname: { xml: '><f>UPPER("rossi")</f>' } as never })]);
    const error = await refusal(file);
    expect(error.details).toEqual([
      expect.objectContaining({
        column: 'Surname',
        value: '=UPPER("rossi")',
        message:
          'Surname: the cell holds the formula =UPPER("rossi") but no calculated value (the program that wrote the file did not compute it); open the file in Excel or LibreOffice, save it and upload it again',
      }),
    ]);
  });

  it('reads the list on a second sheet behind a contacts sheet, and says why the first was skipped', async () => {
    const contacts = rawRow(1, ['Name', 'Phone', 'E-mail']) + rawRow(2, ['Agency Rossi', '+39 06 1234567', 'info@example.com']);
    const file = rawWorkbook({
      sheets: [
        { name: 'Contacts', rows: contacts },
        { name: 'Old', rows: rows(), state: 'hidden' },
        { name: 'Passengers', rows: rows() },
      ],
    });
    const { records, warnings, sheetName } = await parse(file);
    expect(sheetName).toBe('Passengers');
    expect(records).toEqual([MARIO]);
    expect(warnings).toEqual([
      'Sheet "Contacts" was skipped: row 1 names Name, Phone, E-mail but lacks the required columns Surname, Date of birth, Country of birth, Nationality, Document type, Document number, Document expiry, Issuing state, Gender',
      'Sheet "Old" was skipped: it is hidden',
    ]);
  });

  it('names every sheet looked at, and why, when none holds the list', async () => {
    const file = rawWorkbook({
      sheets: [
        { name: 'Contacts', rows: rawRow(1, ['Name', 'Phone']) },
        { name: 'Notes', rows: rawRow(1, ['Fill in one passenger per row']) },
      ],
    });
    const error = await refusal(file);
    expect(error.status).toBe(422);
    expect(error.message).toMatch(/^The header row \(sheet "Contacts", row 1\) is incomplete: Required column "Surname" is missing/);
    expect(error.message).toMatch(
      /Sheets looked at: "Contacts" \(row 1 names Name, Phone but lacks the required columns Surname, .*Gender\); "Notes" \(no row among its first 30 names two passenger columns\)\.$/,
    );
  });
});

describe('hand-written workbooks: damaged is not hostile', () => {
  it('calls a part that runs a little past its declared size and fails its checksum damaged (415), not a zip bomb', async () => {
    const file = simpleWorkbook([passenger()]);
    const sheet = readZip(file).find((part) => part.name === 'xl/worksheets/sheet1.xml')!;
    const stale = { ...sheet, size: sheet.size - 100, crc: sheet.crc ^ 0x5a5a };
    const error = await refusal(withPart(file, stale));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/^The file is a damaged .xlsx workbook: xl\/worksheets\/sheet1.xml is longer than its zip header declares/);
  });

  it('calls bytes that are not UTF-8 damaged (415), never U+FFFD in a record', async () => {
    const file = simpleWorkbook([passenger({ surname: 'ROSSI' })]);
    const sheet = readZip(file).find((part) => part.name === 'xl/worksheets/sheet1.xml')!;
    const text = zlib.inflateRawSync(sheet.compressed);
    const broken = Buffer.from(text);
    broken.write('R\xff', text.indexOf('ROSSI'), 'latin1');
    const error = await refusal(withPart(file, storedOrDeflated(sheet.name, broken)));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/sheet1.xml holds bytes that are not valid UTF-8 text/);
  });
});

describe('hand-written workbooks: hostile shapes refused, naming the limit', () => {
  it('refuses deep XML nesting (1 million levels) at the depth cap', async () => {
    const depth = 1_000_000;
    const rows = `${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}`;
    const error = await refusal(rawWorkbook({ sheets: [{ name: 'Passengers', rows }] }));
    expect(error.status).toBe(422);
    expect(error.message).toBe(
      'The workbook part xl/worksheets/sheet1.xml nests XML elements more than 64 levels deep; no spreadsheet program writes that, so the file was not read',
    );
  });

  it('reads a workbook.xml whose <sheet> tag holds a 500,000-character attribute (no quadratic scan), and refuses a 2 MB one', async () => {
    const rows = rawPassengerRows([passenger()], { dates: 'serial' });
    const file = rawWorkbook({ sheets: [{ name: 'Passengers', rows }] });
    const workbook = readZip(file).find((part) => part.name === 'xl/workbook.xml')!;
    const text = zlib.inflateRawSync(workbook.compressed).toString();
    const padded = (length: number) =>
      withPart(file, storedOrDeflated(workbook.name, Buffer.from(text.replace('<sheet ', `<sheet pad="${'x'.repeat(length)}" `))));
    expect((await parse(padded(500_000))).records).toEqual([MARIO]);
    const error = await refusal(padded(2_000_000));
    expect(error.status).toBe(422);
    expect(error.message).toBe(
      'The workbook part xl/workbook.xml holds a text or tag longer than 1048576 bytes; no spreadsheet program writes one, so the file was not read',
    );
  });

  it('refuses rows of one styled empty cell at column XFD past the cell cap (413), and reads them below it', async () => {
    const junk = (count: number) =>
      Array.from({ length: count }, (_, i) => `<row r="${i + 3}"><c r="XFD${i + 3}" s="1"/></row>`).join('');
    const rows = rawPassengerRows([passenger()], { dates: 'serial' });
    const few = rawWorkbook({ sheets: [{ name: 'Passengers', rows: rows + junk(500) }] });
    expect((await parse(few, { limits: { ...LIMITS, uploadMaxCells: 2000 } })).records).toEqual([MARIO]);
    const many = rawWorkbook({ sheets: [{ name: 'Passengers', rows: rows + junk(200_000) }] });
    const error = await refusal(many, { limits: { ...LIMITS, uploadMaxCells: 20_000 } });
    expect(error.status).toBe(413);
    expect(error.message).toBe(
      'The workbook has more than 20000 cells and rows in the sheets read (the limit UPLOAD_MAX_CELLS); remove what is not the passenger list or split it',
    );
  });

  it('refuses a styles part with more cell formats or number formats than any workbook holds (a million), and reads one with many', async () => {
    const rows = rawPassengerRows([passenger()], { dates: 'serial' });
    const xfs = (count: number) => `<cellXfs><xf numFmtId="0"/><xf numFmtId="14"/>${'<xf numFmtId="0"/>'.repeat(count - 2)}</cellXfs>`;
    const many = rawWorkbook({ styles: xfs(100_000), sheets: [{ name: 'Passengers', rows }] });
    expect((await parse(many)).records).toEqual([MARIO]);
    const million = rawWorkbook({ styles: xfs(1_000_000), sheets: [{ name: 'Passengers', rows }] });
    const error = await refusal(million);
    expect(error.status).toBe(422);
    expect(error.message).toBe('The workbook part xl/styles.xml defines more than 262144 cell formats; no spreadsheet program writes that many, so the file was not read');
    const codes = Array.from({ length: 1_000_000 }, (_, i) => `<numFmt numFmtId="${164 + i}" formatCode="0"/>`).join('');
    const numberFormats = rawWorkbook({ styles: `<numFmts>${codes}</numFmts>${xfs(2)}`, sheets: [{ name: 'Passengers', rows }] });
    expect((await refusal(numberFormats)).message).toBe(
      'The workbook part xl/styles.xml defines more than 65536 number formats; no spreadsheet program writes that many, so the file was not read',
    );
  });

  it('counts the elements of the styles part against the budget like any part', async () => {
    const rows = rawPassengerRows([passenger()], { dates: 'serial' });
    const junk = '<font><sz val="10"/></font>'.repeat(60_000);
    const file = rawWorkbook({ styles: `<fonts>${junk}</fonts><cellXfs><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs>`, sheets: [{ name: 'Passengers', rows }] });
    const error = await refusal(file, { limits: { ...LIMITS, uploadMaxCells: 10_000 } });
    expect(error.status).toBe(413);
    expect(error.message).toMatch(/^The workbook holds more than 100000 XML elements in the parts read/);
  });

  it('refuses a shared string longer than a cell can hold (422)', async () => {
    const file = rawWorkbook({
      sheets: [{ name: 'Passengers', rows: rawPassengerRows([passenger({ surname: { xml: ' t="s"><v>0</v>' } as never })], { dates: 'serial' }) }],
      sharedStrings: [`<t>${'A'.repeat(40_000)}</t>`],
    });
    const error = await refusal(file);
    expect(error.status).toBe(422);
    expect(error.message).toBe(
      'Shared text 1 of the workbook (xl/sharedStrings.xml) holds a text longer than 32767 characters, the most a cell can hold in Excel; the file was not read',
    );
  });

  it('keeps the report small: long values cut to 80 characters, 100 problems listed and the rest counted', async () => {
    const long = 'A'.repeat(30_000);
    const cells = Object.fromEntries(FIELDS.map((field) => [field, { xml: ' t="s"><v>0</v>' }])) as unknown as PassengerCells;
    const file = rawWorkbook({
      sheets: [{ name: 'Passengers', rows: rawPassengerRows(Array.from({ length: 300 }, () => cells)) }],
      sharedStrings: [`<t>${long}</t>`],
    });
    const error = await refusal(file);
    expect(error.message).toBe('The passenger list has 4200 problems in 300 rows; the first 100 are listed');
    expect(error.details).toHaveLength(100);
    expect(error.details[0]).toEqual({
      row_number: 1,
      sheet_row: 2,
      field: 'Surname',
      column: 'Surname',
      value: `${'A'.repeat(79)}…`,
      message: 'Surname: the text is 30000 characters long; no passenger field holds more than 256',
    });
    expect(JSON.stringify(error.details).length).toBeLessThan(40_000);
  });

  it('stops at the wall-time cap (413)', async () => {
    const error = await refusal(simpleWorkbook([passenger()]), { limits: { ...LIMITS, uploadMaxParseMs: 0 } });
    expect(error.status).toBe(413);
    expect(error.message).toMatch(/^Reading the workbook took longer than 0 ms \(the limit UPLOAD_MAX_PARSE_MS\)/);
  });
});

describe('hand-written workbooks: the abort signal', () => {
  it('rejects with the reason of a signal that has fired', async () => {
    const controller = new AbortController();
    const reason = new Error('client went away');
    controller.abort(reason);
    await expect(parse(simpleWorkbook([passenger()]), { signal: controller.signal })).rejects.toBe(reason);
  });

  it('stops a parse under way when the signal fires', async () => {
    const passengers = Array.from({ length: 3000 }, (_, i) => passenger({ numberdoc: `YA${i}` }));
    const file = rawWorkbook({ sheets: [{ name: 'Passengers', rows: rawPassengerRows(passengers, { dates: 'serial' }) }], stored: true });
    const controller = new AbortController();
    const reason = new Error('client went away');
    const parsing = parse(file, { signal: controller.signal });
    setImmediate(() => controller.abort(reason));
    await expect(parsing).rejects.toBe(reason);
  });
});
