import type { PassengerFieldName, PassengerFieldWireValues } from '../passenger.fields';
import { PASSENGER_SHEET_COLUMNS, type SheetField } from '../sheet/heading-aliases';

/** A passenger as an export reads it: the v0 interface's record (what GET …/passenger answers in JSON). */
export type ExportPassenger = { id: number; parent_id?: number | null } & PassengerFieldWireValues<PassengerFieldName>;

/** One export cell before a format spells it: text, a calendar date (`YYYY-MM-DD`), a row number, or empty. */
export type ExportValue = { kind: 'text'; text: string } | { kind: 'date'; text: string } | { kind: 'number'; value: number } | null;

/** The columns every tabular export writes: the upload template's, in its order, under its headings. */
export const EXPORT_COLUMNS = PASSENGER_SHEET_COLUMNS;

/**
 * The cells of each passenger, in list order, as the upload reads them back: the parent is named by
 * its row in this export (1 = first passenger), not by its record id, and the infant flag as yes/no.
 */
export function exportRows(passengers: readonly ExportPassenger[]): ExportValue[][] {
  const rowOf = new Map(passengers.map((passenger, index) => [passenger.id, index + 1]));
  return passengers.map((passenger) => EXPORT_COLUMNS.map((column) => cell(passenger, column.field, rowOf)));
}

function cell(passenger: ExportPassenger, field: SheetField, rowOf: Map<number, number>): ExportValue {
  switch (field) {
    case 'date_born':
    case 'scadenza':
      return { kind: 'date', text: passenger[field] };
    case 'is_carring_infant':
      return { kind: 'text', text: passenger.is_carring_infant ? 'yes' : 'no' };
    case 'row_number_parent_id': {
      const row = passenger.parent_id === null || passenger.parent_id === undefined ? undefined : rowOf.get(passenger.parent_id);
      return row === undefined ? null : { kind: 'number', value: row };
    }
    default: {
      const value = passenger[field];
      return value === null || value === undefined || value === '' ? null : { kind: 'text', text: String(value) };
    }
  }
}
