import { stringify } from 'csv-stringify/sync';
import { EXPORT_COLUMNS, exportRows, type ExportValue } from './export-columns';
import type { ExportPassenger } from './export-columns';

const csvText = (value: ExportValue) => (value === null ? '' : value.kind === 'number' ? String(value.value) : value.text);

/**
 * The xlsx export's columns as RFC 4180 CSV: comma-separated, CRLF line ends, fields quoted when
 * they hold a comma, quote or line break, UTF-8 with a byte order mark (without it Excel reads the
 * bytes in the machine's code page and mangles accented names). Dates are `YYYY-MM-DD`.
 */
export function writePassengerCsv(passengers: readonly ExportPassenger[]): Buffer {
  const rows = [EXPORT_COLUMNS.map((column) => column.heading), ...exportRows(passengers).map((row) => row.map(csvText))];
  return Buffer.from(stringify(rows, { bom: true, record_delimiter: 'windows' }), 'utf8');
}
