import { NO_CELL_FORMATS, readCellFormats } from './cell-formats';
import type { ReadBudget } from './read-budget';
import { readSharedStrings } from './shared-strings';
import type { SpreadsheetSource } from './spreadsheet-source';
import { readWorksheet } from './worksheet-reader';
import { openXlsxPackage, readSheetTables } from './xlsx-package';
import type { ZipEntry } from './zip-directory';

/** An .xlsx as a spreadsheet source: each worksheet part read on its own, the shared strings and the cell formats first. */
export async function openXlsxSource(bytes: Buffer, entries: readonly ZipEntry[], budget: ReadBudget): Promise<SpreadsheetSource> {
  const workbook = await openXlsxPackage(bytes, entries, budget);
  const sharedStrings = workbook.sharedStrings ? await readSharedStrings(bytes, workbook.sharedStrings, budget) : [];
  const formats = workbook.styles ? await readCellFormats(bytes, workbook.styles, budget) : NO_CELL_FORMATS;
  const context = { sharedStrings, budget, formats, date1904: workbook.date1904 };
  return {
    warnings: [],
    async readSheets(choose) {
      for (const sheet of workbook.sheets) {
        const skipped = sheet.entry ? undefined : (sheet.skipped ?? 'it cannot be read');
        const choice = choose({ name: sheet.name, skipped, tables: () => readSheetTables(workbook, sheet, budget) });
        if (choice === 'stop') return;
        if (choice === 'skip' || !sheet.entry) continue;
        await readWorksheet(sheet.entry, bytes, context, choice);
      }
    },
  };
}
