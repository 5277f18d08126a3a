import { setImmediate as nextTurn } from 'node:timers/promises';
import { TextDecoder } from 'node:util';
import { CsvError, Parser } from 'csv-parse';
import type { ReadBudget } from './read-budget';
import { PassengerSheetError, sheetError } from './sheet-error';
import { MAX_TEXT_CHARS } from './spreadsheet-text';
import type { SpreadsheetSource } from './spreadsheet-source';
import { MAX_SHEET_COLUMNS, type SheetCell, type SheetRowInfo } from './worksheet-reader';
import { MAX_MARKUP_RUN } from './xml-part-reader';

/** A CSV hides nothing. */
const VISIBLE: SheetRowInfo = { hidden: false };

/** The separators a CSV may use: Excel writes `,` or, where the decimal mark is a comma, `;`; "Unicode text" uses tabs. */
export const CSV_DELIMITERS = [',', ';', '\t'] as const;
/** Lines looked at to tell the separator; the header is among the first 30 rows anyway. */
const DELIMITER_SAMPLE_LINES = 30;
const DELIMITER_SAMPLE_CHARS = 64 * 1024;
/** Text handed to the CSV parser at a time, with an event-loop turn and a look at the clock between pieces. */
const PARSE_CHUNK_CHARS = 64 * 1024;
/** Characters looked at for control characters that no text file holds. */
const BINARY_SAMPLE_CHARS = 64 * 1024;

const damagedCsv = (reason: string) => sheetError.unsupported(`The file cannot be read as CSV: ${reason}`);

interface DecodedText {
  text: string;
  /** Set when the encoding was guessed rather than declared. */
  warning?: string;
}

function decodeStrictly(bytes: Uint8Array, encoding: string, what: string): string {
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw damagedCsv(`it starts with the byte order mark of ${what} but holds bytes that are not ${what} text`);
  }
}

/**
 * UTF-16 without a byte order mark, told by its zero bytes: the Latin letters, digits and
 * separators of a passenger list each have a zero high byte, on the odd bytes in little-endian
 * order and on the even ones in big-endian order.
 */
function utf16WithoutMark(bytes: Buffer): 'utf-16le' | 'utf-16be' | undefined {
  const sample = bytes.subarray(0, Math.min(bytes.length, 1024) & ~1);
  if (sample.length < 4) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let at = 0; at < sample.length; at += 2) {
    if (sample[at] === 0) evenZeros += 1;
    if (sample[at + 1] === 0) oddZeros += 1;
  }
  const pairs = sample.length / 2;
  if (oddZeros >= pairs * 0.4 && evenZeros <= pairs * 0.05) return 'utf-16le';
  if (evenZeros >= pairs * 0.4 && oddZeros <= pairs * 0.05) return 'utf-16be';
  return undefined;
}

/**
 * The file's text: UTF-8 or UTF-16 when a byte order mark says so, UTF-16 when its zero bytes say
 * so, else UTF-8 when every byte sequence is valid UTF-8, else Windows-1252 (what Excel writes for
 * "CSV" in Western Europe), with a warning since that last one is a guess.
 */
export function decodeCsvText(bytes: Buffer): DecodedText {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { text: decodeStrictly(bytes.subarray(3), 'utf-8', 'UTF-8') };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: decodeStrictly(bytes.subarray(2), 'utf-16le', 'UTF-16') };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: decodeStrictly(bytes.subarray(2), 'utf-16be', 'UTF-16') };
  const utf16 = utf16WithoutMark(bytes);
  if (utf16) {
    try {
      return { text: new TextDecoder(utf16, { fatal: true }).decode(bytes) };
    } catch {
      // Not UTF-16 after all: try the 8-bit encodings.
    }
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return {
      text: new TextDecoder('windows-1252').decode(bytes),
      warning:
        'The CSV file is not UTF-8 text; it was read as Windows-1252 (Western European, what Excel writes for "CSV"). If accented letters look wrong, save it as "CSV UTF-8" and upload it again',
    };
  }
}

/** A separator named by Excel's `sep=;` first line, and the text after that line. */
function declaredDelimiter(text: string): { delimiter: string; rest: string } | undefined {
  const match = /^sep=(.)\r?\n/i.exec(text);
  if (!match || !(CSV_DELIMITERS as readonly string[]).includes(match[1])) return undefined;
  return { delimiter: match[1], rest: text.slice(match[0].length) };
}

/**
 * The separator: the candidate found most often on one line (outside quotes) among the first 30
 * lines. The header row names at least nine columns, so it has eight separators or more, far more
 * than a comma or a semicolon inside a title or a name. A tie (a one-column file) means a comma.
 */
export function detectDelimiter(text: string): string {
  const best = new Map<string, number>(CSV_DELIMITERS.map((d) => [d, 0]));
  const line = new Map<string, number>(CSV_DELIMITERS.map((d) => [d, 0]));
  let inQuotes = false;
  let lines = 0;
  const endLine = () => {
    for (const d of CSV_DELIMITERS) {
      best.set(d, Math.max(best.get(d)!, line.get(d)!));
      line.set(d, 0);
    }
    lines += 1;
  };
  const end = Math.min(text.length, DELIMITER_SAMPLE_CHARS);
  for (let at = 0; at < end && lines < DELIMITER_SAMPLE_LINES; at += 1) {
    const char = text[at];
    if (char === '"') inQuotes = !inQuotes;
    else if (inQuotes) continue;
    else if (char === '\n' || char === '\r') endLine();
    else if (line.has(char)) line.set(char, line.get(char)! + 1);
  }
  endLine();
  let chosen: string = CSV_DELIMITERS[0];
  for (const d of CSV_DELIMITERS) if (best.get(d)! > best.get(chosen)!) chosen = d;
  return chosen;
}

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

/**
 * Refuses, before csv-parse builds anything, what would cost it dearly: a row of more cells than a
 * sheet has columns (a row of a million separators is a million-element array), a cell longer than
 * Excel allows, and a quote that is never closed (the rest of the file would be one cell). One walk
 * over the text, reading it as csv-parse does: a quote opens a quoted cell only at the start of a
 * cell, and inside one `""` stands for a quote.
 */
function checkCsvShape(text: string, delimiter: string): void {
  const separator = delimiter.charCodeAt(0);
  let row = 1;
  let column = 1;
  let length = 0;
  let quotedFrom = 0;
  let inQuotes = false;
  const tooLong = () =>
    sheetError.unprocessable(
      `Sheet row ${row}, column ${column} holds a text longer than ${MAX_TEXT_CHARS} characters, the most a cell can hold in Excel; the file was not read`,
    );
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (inQuotes) {
      if (code === QUOTE) {
        if (text.charCodeAt(at + 1) !== QUOTE) {
          inQuotes = false;
          continue;
        }
        at += 1;
      }
      length += 1;
      if (length > MAX_TEXT_CHARS) throw tooLong();
      continue;
    }
    if (code === separator) {
      column += 1;
      length = 0;
      if (column > MAX_SHEET_COLUMNS) {
        throw sheetError.unprocessable(`Sheet row ${row} has more than ${MAX_SHEET_COLUMNS} cells, more than a sheet has columns`);
      }
    } else if (code === LF || code === CR) {
      if (code === CR && text.charCodeAt(at + 1) === LF) at += 1;
      row += 1;
      column = 1;
      length = 0;
    } else if (code === QUOTE && length === 0) {
      inQuotes = true;
      quotedFrom = row;
    } else {
      length += 1;
      if (length > MAX_TEXT_CHARS) throw tooLong();
    }
  }
  if (inQuotes) throw damagedCsv(`a quoted cell that starts in row ${quotedFrom} is never closed (a " is missing)`);
}

function refuseBinary(text: string): void {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000e-\u0019\u001b-\u001f]/.test(text.slice(0, BINARY_SAMPLE_CHARS))) {
    throw sheetError.unsupported('The file is neither a spreadsheet nor text (it holds control characters no CSV file has)');
  }
}

/** The text in pieces of about `size` characters, never splitting a surrogate pair. */
function* pieces(text: string, size: number): Generator<string> {
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + size);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
    yield text.slice(at, end);
    at = end;
  }
}

function csvErrorAsRefusal(error: CsvError, row: number): PassengerSheetError {
  if (error.code === 'CSV_MAX_RECORD_SIZE') {
    return sheetError.unprocessable(`Row ${row} of the CSV file holds more than ${MAX_MARKUP_RUN} characters; no spreadsheet program writes one, so the file was not read`);
  }
  if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
    return damagedCsv(`a quoted cell that starts in row ${row} is never closed (a " is missing)`);
  }
  return damagedCsv(`${error.message} (row ${row})`);
}

/**
 * A CSV file as a one-sheet spreadsheet: decoded (see decodeCsvText), its separator detected
 * (`sep=` first line, else detectDelimiter), parsed by csv-parse (quoted cells, doubled quotes,
 * line breaks inside quotes, rows of any length, a stray quote inside an unquoted cell taken
 * literally). Every value is text, read as the xlsx reader reads a text cell. Row numbers are the
 * rows a spreadsheet program shows (a line break inside quotes does not start a row). Bounded like
 * a worksheet: each cell and row counts against the budget; 16,384 cells in a row, 32,767
 * characters in a cell and closed quotes are checked before parsing (checkCsvShape); csv-parse
 * holds at most 1 MiB of one row's text.
 */
export function openCsvSource(bytes: Buffer, budget: ReadBudget, fileName?: string): SpreadsheetSource {
  const decoded = decodeCsvText(bytes);
  refuseBinary(decoded.text);
  const declared = declaredDelimiter(decoded.text);
  const text = declared?.rest ?? decoded.text;
  const delimiter = declared?.delimiter ?? detectDelimiter(text);
  checkCsvShape(text, delimiter);
  const base = fileName ? fileName.replace(/^.*[/\\]/, '').replace(/\.[^.]*$/, '') : '';
  const name = base || 'CSV';
  return {
    warnings: decoded.warning ? [decoded.warning] : [],
    async readSheets(choose) {
      const sink = choose({ name });
      if (sink === 'skip' || sink === 'stop') return;
      const cells: SheetCell[] = [];
      let row = 0;
      const parser = new Parser({
        delimiter,
        quote: '"',
        escape: '"',
        relax_quotes: true,
        relax_column_count: true,
        skip_empty_lines: false,
        max_record_size: MAX_MARKUP_RUN,
        // Each row goes to the sink as it ends (csv-parse keeps nothing), its cells counted and bounded.
        on_record: (record: string[]) => {
          row += 1;
          budget.countCell(1 + record.length);
          cells.length = 0;
          record.forEach((value, index) => {
            if (value === '') return;
            if (value.length > MAX_TEXT_CHARS) {
              throw sheetError.unprocessable(
                `Sheet row ${row}, column ${index + 1} holds a text longer than ${MAX_TEXT_CHARS} characters, the most a cell can hold in Excel; the file was not read`,
              );
            }
            cells.push({ column: index + 1, content: value });
          });
          if (!sink.done) sink.row(row, cells, VISIBLE);
          return null;
        },
      });
      parser.resume();
      const finished = new Promise<void>((resolve, reject) => {
        parser.once('error', reject);
        parser.once('end', resolve);
      });
      // A failure is raised on the next turn; it is looked at after each piece.
      finished.catch(() => undefined);
      try {
        for (const piece of pieces(text, PARSE_CHUNK_CHARS)) {
          budget.checkpoint();
          parser.write(Buffer.from(piece, 'utf8'));
          await nextTurn();
          if (parser.destroyed || sink.done) break;
        }
        if (sink.done && !parser.destroyed) return;
        if (!parser.destroyed) parser.end();
        await finished;
      } catch (error) {
        if (error instanceof CsvError) throw csvErrorAsRefusal(error, parser.info.records + 1);
        throw error;
      } finally {
        parser.destroy();
      }
    },
  };
}
