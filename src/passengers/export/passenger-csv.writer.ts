import { stringify } from 'csv-stringify/sync';
import { EXPORT_COLUMNS, exportRows, type ExportValue } from './export-columns';
import type { ExportPassenger } from './export-columns';

/**
 * A text a spreadsheet opening the CSV would run as a formula (=, @, a tab or carriage return first,
 * or + and - before anything but a number: `=HYPERLINK(…)`, `-2+3+CMD|…`) is written after an
 * apostrophe, which makes it text. The import refuses names and e-mail addresses that start so;
 * this guards lists stored before it did. A phone (`+393331234567`) is a number, and stays as it is.
 */
const FORMULA = /^(?:[=@\t\r]|[+-](?![\d ]+$))/;

const csvText = (value: ExportValue) => {
  if (value === null) return '';
  if (value.kind === 'number') return String(value.value);
  return FORMULA.test(value.text) ? `'${value.text}` : value.text;
};

/**
 * The xlsx export's columns as RFC 4180 CSV: comma-separated, CRLF line ends, fields quoted when
 * they hold a comma, quote or line break, UTF-8 with a byte order mark (without it Excel reads the
 * bytes in the machine's code page and mangles accented names). Dates are `YYYY-MM-DD`.
 */
export function writePassengerCsv(passengers: readonly ExportPassenger[]): Buffer {
  const rows = [EXPORT_COLUMNS.map((column) => column.heading), ...exportRows(passengers).map((row) => row.map(csvText))];
  return Buffer.from(stringify(rows, { bom: true, record_delimiter: 'windows' }), 'utf8');
}
