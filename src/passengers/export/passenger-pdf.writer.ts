import { setImmediate as nextTurn } from 'node:timers/promises';
import { openSync as openFont, type Font } from 'fontkit';
import PDFDocument from 'pdfkit';
import { unprocessable, type ErrorDetail } from '../../errors';
import { clientGone } from '../../shared/read-stream';
import type { ExportPassenger } from './export-columns';
import { describeCharacter } from './icao-transliteration';

/**
 * DejaVu Sans, read from the installed npm package (nothing is fetched at run time): it covers
 * Latin, Latin Extended, Vietnamese, Greek, Cyrillic and more (Ł, ő, ß, Nguyễn, Ж, Ω…). The
 * built-in PDF fonts know only WinAnsi and would drop them. It has no Chinese, Japanese or Korean
 * characters, nor many symbols: a text with one is refused before anything is laid out
 * (assertPrintable), never printed with empty boxes.
 */
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const FONT_BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');
const FONT_NAME = 'DejaVu Sans';

/** The body font as fontkit reads it (the engine pdfkit embeds it with), opened on first use. */
let bodyFont: Font | undefined;
/** Whether the body font draws a code point, by code point (a list repeats the same few dozen); at most DRAWABLE_MAX kept. */
const drawable = new Map<number, boolean>();
const DRAWABLE_MAX = 10_000;

/**
 * Scripts written right to left. DejaVu Sans has Arabic and Hebrew letters, but pdfkit lays text out
 * left to right, characters in the order stored: a name in these scripts would print backwards.
 */
const RIGHT_TO_LEFT = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}\p{Script=Hanifi_Rohingya}]/u;

/** The characters of `text` the manifest cannot print as they are (each once): no glyph in the font, or a right-to-left script. */
export function unprintableCharacters(text: string): string[] {
  const found = new Set<string>();
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    // Printable ASCII is in every font; most cells are only that.
    if (codePoint >= 0x20 && codePoint < 0x7f) continue;
    let ok = drawable.get(codePoint);
    if (ok === undefined) {
      bodyFont ??= openFont(FONT);
      ok = bodyFont.hasGlyphForCodePoint(codePoint) && !RIGHT_TO_LEFT.test(char);
      // Names can hold any of a million code points: the memory stays bounded whatever lists come.
      if (drawable.size >= DRAWABLE_MAX) drawable.clear();
      drawable.set(codePoint, ok);
    }
    if (!ok) found.add(char);
  }
  return [...found];
}

export interface ManifestEndpoint {
  icao: string;
  localTime: string;
  airport?: { iata?: string | null; city?: string | null; timezone?: string | null } | null;
}

/** What heads a manifest: the flight, its aircraft and operator. */
export interface ManifestFlight {
  flightId: number;
  flightNumber: string;
  registration: string | null;
  aircraftType: string | null;
  operator: string | null;
  departure: ManifestEndpoint;
  arrival: ManifestEndpoint;
}

export interface ManifestInput {
  flight: ManifestFlight;
  version: number;
  producedAt: Date;
  passengers: readonly ExportPassenger[];
}

const COLUMNS: { heading: string; field: string; width: number; value(passenger: ExportPassenger, index: number): string }[] = [
  { heading: 'No.', field: 'row', width: 28, value: (_p, index) => String(index + 1) },
  { heading: 'Surname', field: 'surname', width: 120, value: (p) => p.surname },
  { heading: 'Given names', field: 'name', width: 120, value: (p) => p.name },
  { heading: 'Sex', field: 'gender', width: 28, value: (p) => p.gender },
  { heading: 'Date of birth', field: 'date_born', width: 68, value: (p) => p.date_born },
  { heading: 'Nationality', field: 'nazionalita', width: 58, value: (p) => p.nazionalita },
  { heading: 'Doc. type', field: 'typedoc', width: 70, value: (p) => (p.typedoc === 'P' ? 'Passport' : p.typedoc === 'I' ? 'Identity card' : p.typedoc) },
  { heading: 'Doc. number', field: 'numberdoc', width: 90, value: (p) => p.numberdoc },
  { heading: 'Doc. expiry', field: 'scadenza', width: 68, value: (p) => p.scadenza },
  { heading: 'Issuing state', field: 'issuingstate', width: 64, value: (p) => p.issuingstate },
  { heading: 'Infant', field: 'is_carring_infant', width: 40, value: (p) => (p.is_carring_infant ? 'yes' : 'no') },
];

/** The header's facts: label, value, and where the value comes from (named when it cannot be printed). */
function headerFacts(input: ManifestInput): { label: string; value: string; source: string }[] {
  const { flight } = input;
  return [
    { label: 'Operator', value: flight.operator ?? 'not configured (MANIFEST_OPERATOR)', source: 'the setting MANIFEST_OPERATOR' },
    { label: 'Aircraft registration', value: flight.registration ?? 'unknown', source: 'the flight’s resource (registration)' },
    { label: 'Aircraft type', value: flight.aircraftType ?? 'unknown', source: 'the flight’s resource (title)' },
    { label: 'Flight number', value: flight.flightNumber, source: 'the flight' },
    { label: 'Departure (embarkation)', value: place(flight.departure), source: 'the departure airport' },
    { label: 'Arrival (disembarkation)', value: place(flight.arrival), source: 'the arrival airport' },
    { label: 'Passengers', value: String(input.passengers.length), source: 'the list' },
  ];
}

const listed = (rows: readonly number[]) => `${rows.length === 1 ? 'row' : 'rows'} ${rows.slice(0, 20).join(', ')}${rows.length > 20 ? '…' : ''}`;

const characterList = (characters: readonly string[]) =>
  `${characters.slice(0, 10).map(describeCharacter).join(', ')}${characters.length > 10 ? ` and ${characters.length - 10} more` : ''}`;

/**
 * A 422 when the manifest would print a character it cannot show: one its font has no glyph for
 * (Chinese, Japanese, Korean…), which would come out as an empty box, or one of a right-to-left
 * script, which would come out backwards. Every such passenger is listed (id, row, field, value,
 * the characters), and so is a header fact; the xlsx and csv exports keep every character.
 */
export function assertPrintable(input: ManifestInput): void {
  const problems: ErrorDetail[] = [];
  for (const fact of headerFacts(input)) {
    const characters = unprintableCharacters(fact.value);
    if (characters.length) {
      problems.push({ field: fact.label, value: fact.value, message: `${fact.label} "${fact.value}" (from ${fact.source}) has characters the manifest cannot print: ${characterList(characters)}` });
    }
  }
  input.passengers.forEach((passenger, index) => {
    for (const column of COLUMNS) {
      const value = column.value(passenger, index);
      const characters = unprintableCharacters(value);
      if (!characters.length) continue;
      problems.push({
        field: column.field,
        id: passenger.id,
        row: index + 1,
        value,
        message: `Passenger ${index + 1} (id ${passenger.id}): ${column.heading.toLowerCase()} "${value}" has characters the manifest cannot print: ${characterList(characters)}`,
      });
    }
  });
  if (!problems.length) return;
  const rows = [...new Set(problems.filter((problem) => problem.row !== undefined).map((problem) => problem.row as number))];
  const facts = problems.filter((problem) => problem.row === undefined).map((problem) => problem.field);
  const what = [...(rows.length ? [`the names of ${rows.length} passenger${rows.length === 1 ? '' : 's'} (${listed(rows)})`] : []), ...(facts.length ? [`the header's ${facts.join(', ')}`] : [])].join(' and ');
  throw unprocessable(
    `The PDF manifest cannot print ${what}: they have characters its font, ${FONT_NAME}, has no glyph for (Chinese, Japanese, Korean, some symbols), which would print as empty boxes, ` +
      'or of a right-to-left script (Arabic, Hebrew), which it would print backwards; nothing was printed. Ask for format=xlsx or format=csv, which keep every character, ' +
      'or store each name\'s Latin form as printed in the passport\'s machine-readable zone',
    problems,
  );
}

const MARGIN = 36;
/** A row's height when its text is one line: the line and the space under it. */
const ROW = 15;
/** The table's text size. */
const BODY_SIZE = 8;
/**
 * The smallest size a cell's text is shrunk to so that it stays on one line; text that needs less
 * is printed at BODY_SIZE on as many lines as it takes, and its row grows to hold them.
 */
const MIN_SIZE = 6.5;
/** Space between a cell's text and the next column. */
const GUTTER = 4;
/** The header's facts: where a value starts, how wide it may run, the space from one fact to the next. */
const FACT_X = MARGIN + 150;
const FACT_WIDTH = 500;
const FACT_STEP = 13;

/** How a cell's text is printed: its size, on one line or wrapped, and the height it takes. */
interface CellLayout {
  text: string;
  size: number;
  wrap: boolean;
  height: number;
}

/** The size at which text `natural` wide at `size` is `width` wide (widths scale with the size), rounded down. */
const sizeToFit = (size: number, natural: number, width: number) => Math.floor(((size * width) / natural) * 100) / 100;

/**
 * A cell's text laid out to stay within its column, never cut and never running into the next
 * column or row: at `size` on one line when it fits; else shrunk on one line, down to MIN_SIZE;
 * else wrapped at spaces and hyphens onto as many lines as it takes, at `size` or, when its longest word is
 * wider than the column, at the size that word fits (down to MIN_SIZE); only a word wider than the
 * column even at MIN_SIZE is broken inside (at `size`), continuing on the next line. Uses the
 * current font.
 */
function layoutCell(doc: PDFKit.PDFDocument, text: string, width: number, size = BODY_SIZE): CellLayout {
  doc.fontSize(size);
  const natural = doc.widthOfString(text);
  if (natural <= width) return { text, size, wrap: false, height: doc.currentLineHeight(true) };
  const shrunk = sizeToFit(size, natural, width);
  if (shrunk >= MIN_SIZE) {
    doc.fontSize(shrunk);
    return { text, size: shrunk, wrap: false, height: doc.currentLineHeight(true) };
  }
  // Lines break at spaces and after hyphens (GROSS-/MUELLER).
  const longestWord = Math.max(...text.split(/\s+|(?<=-)/).map((word) => doc.widthOfString(word)));
  const wordFits = longestWord <= width ? size : sizeToFit(size, longestWord, width);
  // A word that must be broken anyway is broken at `size`, the easier to read.
  const wrapped = wordFits >= MIN_SIZE ? wordFits : size;
  doc.fontSize(wrapped);
  return { text, size: wrapped, wrap: true, height: doc.heightOfString(text, { width }) };
}

/** Prints a laid out cell at (x, y): one line without a wrapper (pdfkit wraps any text given a width), or wrapped within `width`. */
function printCell(doc: PDFKit.PDFDocument, cell: CellLayout, x: number, y: number, width: number): void {
  doc.fontSize(cell.size);
  if (cell.wrap) doc.text(cell.text, x, y, { width });
  else doc.text(cell.text, x, y, { lineBreak: false });
}

const place = (endpoint: ManifestEndpoint) =>
  [endpoint.icao, endpoint.airport?.iata, endpoint.airport?.city].filter(Boolean).join(' / ') + `, ${endpoint.localTime} local${endpoint.airport?.timezone ? ` (${endpoint.airport.timezone})` : ''}`;

/**
 * Rows laid out between two turns of the event loop. pdfkit lays text out synchronously: 2,000 rows
 * of 11 cells in one go held the event loop 0.8 s (2 shared cores); 25 rows take a few ms.
 */
const ROWS_PER_TURN = 25;

/** Page footers drawn between two turns of the event loop. */
const FOOTERS_PER_TURN = 10;

/**
 * Waits for the event loop's next turn (setImmediate: pending I/O, other requests, go first), then
 * stops with clientGone() when `signal` has fired: nobody is waiting for the document any more.
 */
async function nextSlice(signal: AbortSignal | undefined): Promise<void> {
  await nextTurn();
  if (signal?.aborted) throw clientGone();
}

/**
 * A printable passenger manifest after ICAO Annex 9's form: operator, aircraft registration and
 * type, flight number, points and local times of embarkation and disembarkation, then one row per
 * passenger in list order; every page carries its number of the total, the list version and when
 * the document was produced (UTC). A4 landscape.
 *
 * Laid out a slice at a time (ROWS_PER_TURN rows, FOOTERS_PER_TURN footers, then the pages'
 * compression, then the fonts and the cross-reference table), with a turn of the event loop between
 * slices, so no render holds the event loop for long. The slices make the same calls in the same
 * order as one pass would: the bytes are the same. When `signal` fires (the client went away), the
 * render stops at the next slice and rejects with clientGone(). A text the manifest cannot print is
 * a 422 before anything is laid out (assertPrintable).
 */
export async function writePassengerPdf(input: ManifestInput, signal?: AbortSignal): Promise<Buffer> {
  assertPrintable(input);
  const { flight } = input;
  const doc = new PDFDocument({ size: 'A4', layout: 'landscape', margin: MARGIN, bufferPages: true, info: { Title: `Passenger manifest ${flight.flightNumber}`, Creator: 'broker-flight-gateway' } });
  doc.registerFont('body', FONT);
  doc.registerFont('bold', FONT_BOLD);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  // A render stopped half-way never awaits it: an error of the abandoned document is nobody's.
  done.catch(() => undefined);

  const bottom = doc.page.height - MARGIN - 24;
  const tableWidth = COLUMNS.reduce((sum, column) => sum + column.width, 0);
  /** A row of cells, each within its column; the height the row takes (at least ROW). */
  const layoutRow = (texts: readonly string[]) => {
    const cells = COLUMNS.map((column, index) => layoutCell(doc, texts[index], column.width - GUTTER));
    return { cells, height: Math.max(ROW, ...cells.map((cell) => cell.height + ROW - doc.fontSize(BODY_SIZE).currentLineHeight(true))) };
  };
  const printRow = ({ cells }: ReturnType<typeof layoutRow>, y: number) => {
    let x = MARGIN;
    COLUMNS.forEach((column, index) => {
      printCell(doc, cells[index], x, y, column.width - GUTTER);
      x += column.width;
    });
  };
  const tableHeader = (y: number) => {
    doc.font('bold');
    const row = layoutRow(COLUMNS.map((column) => column.heading));
    printRow(row, y);
    doc.moveTo(MARGIN, y + row.height - 3).lineTo(MARGIN + tableWidth, y + row.height - 3).lineWidth(0.5).stroke();
    doc.font('body');
    return y + row.height;
  };

  doc.font('bold').fontSize(14).text('PASSENGER MANIFEST', MARGIN, MARGIN);
  let y = MARGIN + 24;
  for (const { label, value } of headerFacts(input)) {
    doc.font('bold').fontSize(9).text(`${label}:`, MARGIN, y, { lineBreak: false });
    doc.font('body');
    const fact = layoutCell(doc, value, FACT_WIDTH, 9);
    printCell(doc, fact, FACT_X, y, FACT_WIDTH);
    y += Math.max(FACT_STEP, fact.height + FACT_STEP - doc.fontSize(9).currentLineHeight(true));
  }
  y = tableHeader(y + 10);
  for (let index = 0; index < input.passengers.length; index += 1) {
    // The first turn comes after the heading, whose first text opened (read and parsed) both fonts.
    if (index % ROWS_PER_TURN === 0) await nextSlice(signal);
    const passenger = input.passengers[index];
    const row = layoutRow(COLUMNS.map((column) => column.value(passenger, index)));
    // A row is never split: one that does not fit starts the next page.
    if (y + row.height > bottom) {
      doc.addPage();
      y = tableHeader(MARGIN);
    }
    printRow(row, y);
    y += row.height;
    // A hairline under each row: a row of several lines reads as one.
    doc.save().moveTo(MARGIN, y - 3).lineTo(MARGIN + tableWidth, y - 3).lineWidth(0.25).strokeColor('#bbbbbb').stroke().restore();
  }
  if (input.passengers.length === 0) doc.fontSize(BODY_SIZE).text('No passengers on the list.', MARGIN, y, { lineBreak: false });

  const range = doc.bufferedPageRange();
  const produced = input.producedAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
  for (let page = range.start; page < range.start + range.count; page += 1) {
    if (page > range.start && (page - range.start) % FOOTERS_PER_TURN === 0) await nextSlice(signal);
    doc.switchToPage(page);
    const footer = `Flight ${flight.flightNumber} (id ${flight.flightId}) · list version ${input.version} · produced ${produced} · page ${page + 1} of ${range.count}`;
    // Below the bottom margin: a zero margin for the footer keeps pdfkit from starting a new page.
    doc.page.margins.bottom = 0;
    doc.font('body').fontSize(7).text(footer, MARGIN, doc.page.height - MARGIN, { width: doc.page.width - 2 * MARGIN, align: 'center', lineBreak: false });
  }
  // Ending the document compresses every page (zlib's deflateSync), then embeds the fonts' subsets:
  // the pages first, on a turn of their own (end() finds none left to compress), then the rest.
  await nextSlice(signal);
  doc.flushPages();
  await nextSlice(signal);
  doc.end();
  return done;
}
