import ExcelJS from 'exceljs';
import { EXPORT_COLUMNS, exportRows, type ExportPassenger, type ExportValue } from './export-columns';

/** The template's cell formats: dates as dates, document number and phone as text (leading zeros, the + of E.164). */
const FORMATS: Partial<Record<string, string>> = { date_born: 'yyyy-mm-dd', scadenza: 'yyyy-mm-dd', numberdoc: '@', phone: '@', row_number_parent_id: '0' };

function xlsxValue(value: ExportValue): ExcelJS.CellValue {
  if (value === null) return null;
  if (value.kind === 'number') return value.value;
  if (value.kind === 'date') {
    const [year, month, day] = value.text.split('-').map(Number);
    return new Date(Date.UTC(year, month - 1, day));
  }
  return value.text;
}

/**
 * A flight's passengers as the upload template lays them out: the template's headings in bold on a
 * frozen first row, one passenger per row in list order, the template's value formats. Uploading it
 * gives the same records back.
 */
export async function writePassengerXlsx(passengers: readonly ExportPassenger[]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'broker-flight-gateway';
  const sheet = workbook.addWorksheet('Passengers', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = EXPORT_COLUMNS.map((column) => ({
    header: column.heading,
    key: column.field,
    width: Math.max(14, column.heading.length + 4),
    style: FORMATS[column.field] ? { numFmt: FORMATS[column.field] } : {},
  }));
  sheet.getRow(1).font = { bold: true };
  for (const row of exportRows(passengers)) sheet.addRow(row.map(xlsxValue));
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
