import { PassThrough } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import ExcelJS from 'exceljs';
import { clientGone } from '../../shared/read-stream';
import { EXPORT_COLUMNS, exportRows, type ExportPassenger, type ExportValue } from './export-columns';

/** The template's cell formats: dates as dates, document number and phone as text (leading zeros, the + of E.164). */
const FORMATS: Partial<Record<string, string>> = { date_born: 'yyyy-mm-dd', scadenza: 'yyyy-mm-dd', numberdoc: '@', phone: '@', row_number_parent_id: '0' };

/**
 * Rows written between two turns of the event loop. exceljs's in-memory workbook wrote a 2,000-row
 * list in one synchronous pass (240 to 480 ms of blocked event loop on 2 shared cores); its
 * streaming writer renders a row as it is committed and compresses on zlib's threads.
 */
const ROWS_PER_TURN = 100;

/**
 * Excel counts days as if 1900 had a 29 February, so a date before 1 March 1900 has no serial
 * exceljs writes right (it wrote 1900-01-01 as a cell of 1900-01-02): such a date is written as its
 * `YYYY-MM-DD` text, which the upload reads back as the same day.
 */
const FIRST_SERIAL_DAY = '1900-03-01';

function xlsxValue(value: ExportValue): ExcelJS.CellValue {
  if (value === null) return null;
  if (value.kind === 'number') return value.value;
  if (value.kind === 'date') {
    if (value.text < FIRST_SERIAL_DAY) return value.text;
    const [year, month, day] = value.text.split('-').map(Number);
    return new Date(Date.UTC(year, month - 1, day));
  }
  // OOXML escapes characters as _xHHHH_ in text, which readers (Excel, exceljs, the upload) decode:
  // a text that holds such a sequence itself keeps it by escaping its underscore (_x005F_).
  return value.text.replace(/_x([0-9A-Fa-f]{4})_/g, '_x005F_x$1_');
}

/**
 * A flight's passengers as the upload template lays them out: the template's headings in bold on a
 * frozen first row, one passenger per row in list order, the template's value formats. Uploading it
 * gives the same records back. Written a slice of rows at a time, with a turn of the event loop
 * between slices; when `signal` fires (the client went away) it stops at the next slice with clientGone().
 */
export async function writePassengerXlsx(passengers: readonly ExportPassenger[], signal?: AbortSignal): Promise<Buffer> {
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    output.on('end', resolve);
    output.on('error', reject);
  });
  // A write stopped half-way never awaits it: an error of the abandoned stream is nobody's.
  ended.catch(() => undefined);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: false });
  workbook.creator = 'broker-flight-gateway';
  const sheet = workbook.addWorksheet('Passengers', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = EXPORT_COLUMNS.map((column) => ({
    header: column.heading,
    key: column.field,
    width: Math.max(14, column.heading.length + 4),
    style: FORMATS[column.field] ? { numFmt: FORMATS[column.field] } : {},
  }));
  const header = sheet.getRow(1);
  header.font = { bold: true };
  header.commit();
  const rows = exportRows(passengers);
  for (let index = 0; index < rows.length; index += 1) {
    if (index % ROWS_PER_TURN === 0) {
      await nextTurn();
      if (signal?.aborted) {
        output.destroy();
        throw clientGone();
      }
    }
    sheet.addRow(rows[index].map(xlsxValue)).commit();
  }
  sheet.commit();
  await workbook.commit();
  await ended;
  return Buffer.concat(chunks);
}
