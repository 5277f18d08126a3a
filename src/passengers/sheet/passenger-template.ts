import ExcelJS from 'exceljs';
import { PASSENGER_FIELDS } from '../passenger.fields';
import { PASSENGER_SHEET_COLUMNS, type SheetField } from './heading-aliases';

/** Rows below the header that carry the drop-down lists and formats. */
const TEMPLATE_ROWS = 2000;

/** An Excel list validation's formula: the codes, quoted and comma-separated. */
const listOf = (values: readonly string[]) => `"${values.join(',')}"`;

const LISTS: Partial<Record<SheetField, string>> = {
  typedoc: listOf(PASSENGER_FIELDS.typedoc.values),
  gender: listOf(PASSENGER_FIELDS.gender.values),
  is_carring_infant: '"yes,no"',
};

const FORMATS: Partial<Record<SheetField, string>> = {
  date_born: 'yyyy-mm-dd',
  scadenza: 'yyyy-mm-dd',
  // Text, so Excel keeps leading zeros and the + of international numbers.
  numberdoc: '@',
  phone: '@',
  row_number_parent_id: '0',
};

const EXAMPLE: Record<SheetField, ExcelJS.CellValue> = {
  surname: 'ROSSI',
  name: 'MARIO',
  date_born: new Date(Date.UTC(1980, 4, 17)),
  luogonascita: 'IT',
  nazionalita: 'IT',
  typedoc: 'P',
  numberdoc: 'YA1234567',
  scadenza: new Date(Date.UTC(2031, 4, 16)),
  issuingstate: 'IT',
  email: 'mario.rossi@example.com',
  phone: '+39 333 123 4567',
  is_carring_infant: 'no',
  gender: 'M',
  row_number_parent_id: null,
};

/**
 * An .xlsx for brokers to fill in: the canonical headings (each with a note saying what goes in the
 * column), a frozen header row, drop-down lists for document type, gender and infant, date and text
 * formats, and one example row that the parser accepts.
 */
export async function buildPassengerTemplate(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'broker-flight-gateway';
  const sheet = workbook.addWorksheet('Passengers', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = PASSENGER_SHEET_COLUMNS.map((column) => ({
    header: column.heading,
    key: column.field,
    width: Math.max(14, column.heading.length + 4),
    style: FORMATS[column.field] ? { numFmt: FORMATS[column.field] } : {},
  }));
  const header = sheet.getRow(1);
  header.font = { bold: true };
  PASSENGER_SHEET_COLUMNS.forEach((column, index) => {
    header.getCell(index + 1).note = `${column.required ? 'Required' : 'Optional'}: ${column.content}.`;
  });
  sheet.addRow(PASSENGER_SHEET_COLUMNS.map((column) => EXAMPLE[column.field]));

  // exceljs 4.4 has range validations (one <dataValidation sqref="F2:F2001">) but does not type them.
  const validations = (sheet as unknown as { dataValidations: { add(range: string, rule: ExcelJS.DataValidation): void } })
    .dataValidations;
  PASSENGER_SHEET_COLUMNS.forEach((column, index) => {
    const letter = sheet.getColumn(index + 1).letter;
    const range = `${letter}2:${letter}${TEMPLATE_ROWS + 1}`;
    const list = LISTS[column.field];
    if (list) {
      validations.add(range, {
        type: 'list',
        allowBlank: !column.required,
        formulae: [list],
        showErrorMessage: true,
        errorTitle: column.heading,
        error: `Choose one of ${list.replace(/"/g, '')}`,
      });
    } else if (column.field === 'row_number_parent_id') {
      validations.add(range, {
        type: 'whole',
        operator: 'greaterThanOrEqual',
        allowBlank: true,
        formulae: [1],
        showErrorMessage: true,
        errorTitle: column.heading,
        error: 'The passenger number of the accompanying adult (1 = first passenger row)',
      });
    }
  });
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
