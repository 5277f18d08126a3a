import type { MergedRange } from './merged-cells';
import type { ReadBudget } from './read-budget';
import { sheetError } from './sheet-error';
import { isTrue, parseRange, type SheetAutoFilter } from './worksheet-reader';
import { prefixedAttribute, readXmlPart, type XmlPartHandler } from './xml-part-reader';
import type { ZipEntry } from './zip-directory';
import { checkReadable, damagedFile } from './zip-part';

/** A sheet of the workbook, in tab order: its part, or why it is not read. */
export interface SheetPart {
  name: string;
  entry?: ZipEntry;
  /** The part's name, as the workbook's relationships give it (its own relationships are found from it). */
  partName?: string;
  /** Why the sheet is not a candidate (hidden, a chart sheet, its part missing). */
  skipped?: string;
}

/** An .xlsx whose directory, package relationships and workbook have been read. */
export interface XlsxPackage {
  bytes: Buffer;
  /** Every sheet in tab order. */
  sheets: SheetPart[];
  /** The shared strings part; absent when the workbook has none (or names one it does not hold). */
  sharedStrings?: ZipEntry;
  /** The styles part (the cells' number formats); absent when the workbook has none (or names one it does not hold). */
  styles?: ZipEntry;
  /** Dates count from 1904 (old Mac workbooks). */
  date1904: boolean;
  /** A part by its name (case-insensitive, as OPC compares them). */
  find(partName: string): ZipEntry | undefined;
}

/** More tables than any sheet holds; each is looked at for every row of the list. */
export const MAX_SHEET_TABLES = 256;

/** An Excel table (a ListObject) of a sheet: its range, its totals rows at the bottom, its filter. */
export interface SheetTable {
  name: string;
  range: MergedRange;
  /** Rows at the bottom of `range` that are the table's totals row (0 or 1). */
  totalsRows: number;
  autoFilter?: SheetAutoFilter;
}

function describeNonWorkbook(names: Set<string>): string {
  if (names.has('word/document.xml')) return 'The file is a Word document, not a spreadsheet';
  return 'The file is a zip archive but not an .xlsx workbook (it has no xl/workbook.xml)';
}

/** Zip item names as parts are looked up: OPC part names are case-insensitive; some writers use `\\` or a leading `/`. */
function partKey(name: string): string {
  return name.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase();
}

class PartIndex {
  private readonly byKey = new Map<string, ZipEntry>();

  constructor(entries: readonly ZipEntry[]) {
    for (const entry of entries) if (!this.byKey.has(partKey(entry.name))) this.byKey.set(partKey(entry.name), entry);
  }

  get names(): Set<string> {
    return new Set(this.byKey.keys());
  }

  /** A part by its name (relationship targets are URIs: `%20` may stand for a space in the zip). */
  find(partName: string): ZipEntry | undefined {
    const found = this.byKey.get(partKey(partName));
    if (found) return found;
    try {
      return this.byKey.get(partKey(decodeURIComponent(partName)));
    } catch {
      return undefined;
    }
  }
}

/** A relationship target as a part name: relative to the source part's folder, or absolute from the package root. */
export function resolveTarget(sourceFolder: string, target: string): string {
  const path = target.startsWith('/') ? target : `${sourceFolder}${target}`;
  const parts: string[] = [];
  for (const segment of path.split(/[/\\]/)) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  return parts.join('/');
}

interface Relationship {
  type: string;
  target: string;
}

function folderOf(partName: string): string {
  return partName.slice(0, partName.lastIndexOf('/') + 1);
}

function relationshipsPartOf(partName: string): string {
  const folder = folderOf(partName);
  return `${folder}_rels/${partName.slice(folder.length)}.rels`;
}

async function readRelationships(
  bytes: Buffer,
  entry: ZipEntry,
  sourceFolder: string,
  budget: ReadBudget,
): Promise<Map<string, Relationship>> {
  const found = new Map<string, Relationship>();
  const handler: XmlPartHandler = {
    done: false,
    open(name, attributes) {
      if (name !== 'Relationship' || attributes.TargetMode === 'External') return;
      const { Id: id, Type: type, Target: target } = attributes;
      if (id && type && target) found.set(id, { type, target: resolveTarget(sourceFolder, target) });
    },
    close() {},
    text() {},
  };
  await readXmlPart(bytes, entry, handler, budget);
  return found;
}

const isType = (relationship: Relationship | undefined, kind: string) => relationship?.type.endsWith(`/${kind}`) === true;

interface WorkbookSheet {
  name: string;
  state?: string;
  relationshipId?: string;
}

async function readWorkbook(bytes: Buffer, entry: ZipEntry, budget: ReadBudget) {
  const sheets: WorkbookSheet[] = [];
  let root: string | undefined;
  let date1904 = false;
  let inSheets = false;
  const handler: XmlPartHandler = {
    done: false,
    open(name, attributes) {
      root ??= name;
      if (name === 'sheets') inSheets = true;
      else if (name === 'sheet' && inSheets) {
        sheets.push({ name: attributes.name ?? `Sheet${sheets.length + 1}`, state: attributes.state, relationshipId: prefixedAttribute(attributes, 'id') });
      } else if (name === 'workbookPr') date1904 = isTrue(attributes.date1904);
    },
    close(name) {
      if (name === 'sheets') inSheets = false;
    },
    text() {},
  };
  await readXmlPart(bytes, entry, handler, budget);
  return { root, sheets, date1904 };
}

/**
 * Finds the parts of an .xlsx (its zip directory already read and its size judged) the way the
 * package says: the workbook through `_rels/.rels` (falling back to `xl/workbook.xml`), the sheets,
 * shared strings and styles through the workbook's relationships, part names compared without regard to
 * case. Throws PassengerSheetError 415 when it is not an .xlsx or is damaged.
 */
export async function openXlsxPackage(bytes: Buffer, entries: readonly ZipEntry[], budget: ReadBudget): Promise<XlsxPackage> {
  const parts = new PartIndex(entries);
  const packageRels = parts.find('_rels/.rels');
  let workbookName = 'xl/workbook.xml';
  if (packageRels) {
    const relationships = await readRelationships(bytes, packageRels, '', budget);
    const office = [...relationships.values()].find((r) => isType(r, 'officeDocument'));
    if (office) workbookName = office.target;
  }
  if (/\.bin$/i.test(workbookName)) {
    throw sheetError.unsupported('The file is an Excel binary workbook (.xlsb), not an .xlsx');
  }
  const workbookEntry = parts.find(workbookName);
  if (!workbookEntry) throw sheetError.unsupported(describeNonWorkbook(parts.names));
  checkReadable(workbookEntry);
  const workbook = await readWorkbook(bytes, workbookEntry, budget);
  if (workbook.root !== 'workbook') throw sheetError.unsupported(describeNonWorkbook(parts.names));
  const relsEntry = parts.find(relationshipsPartOf(workbookName));
  if (!relsEntry) throw damagedFile(`${relationshipsPartOf(workbookName)} is missing, so the sheets cannot be found`);
  const relationships = await readRelationships(bytes, relsEntry, folderOf(workbookName), budget);

  const sheets = workbook.sheets.map(({ name, state, relationshipId }): SheetPart => {
    const relationship = relationshipId === undefined ? undefined : relationships.get(relationshipId);
    if (state === 'hidden' || state === 'veryHidden') return { name, skipped: 'it is hidden' };
    if (!relationship) return { name, skipped: 'the workbook does not say where its part is (the file is damaged)' };
    if (isType(relationship, 'chartsheet')) return { name, skipped: 'it is a chart sheet' };
    if (!isType(relationship, 'worksheet')) return { name, skipped: 'it is not a worksheet' };
    const entry = parts.find(relationship.target);
    if (!entry) return { name, skipped: `its part ${relationship.target} is missing (the file is damaged)` };
    checkReadable(entry);
    return { name, entry, partName: relationship.target };
  });
  const sharedStringsRel = [...relationships.values()].find((r) => isType(r, 'sharedStrings'));
  const sharedStrings = sharedStringsRel ? parts.find(sharedStringsRel.target) : undefined;
  if (sharedStrings) checkReadable(sharedStrings);
  const stylesRel = [...relationships.values()].find((r) => isType(r, 'styles'));
  const styles = stylesRel ? parts.find(stylesRel.target) : undefined;
  if (styles) checkReadable(styles);
  return { bytes, sheets, sharedStrings, styles, date1904: workbook.date1904, find: (partName) => parts.find(partName) };
}

async function readTable(bytes: Buffer, entry: ZipEntry, budget: ReadBudget): Promise<SheetTable | undefined> {
  let table: SheetTable | undefined;
  let inFilter = false;
  let inFilterColumn = false;
  const handler: XmlPartHandler = {
    done: false,
    open(name, attributes) {
      if (name === 'table' && !table) {
        const range = attributes.ref === undefined ? undefined : parseRange(attributes.ref);
        const totalsRows = Number(attributes.totalsRowCount ?? 0);
        if (range) table = { name: attributes.displayName ?? attributes.name ?? '', range, totalsRows: Number.isInteger(totalsRows) && totalsRows > 0 ? 1 : 0 };
      } else if (name === 'autoFilter' && table) {
        const range = attributes.ref === undefined ? undefined : parseRange(attributes.ref);
        inFilter = true;
        table.autoFilter = { range: range ?? table.range, filtering: false };
      } else if (name === 'filterColumn' && inFilter) inFilterColumn = true;
      else if (inFilterColumn && table?.autoFilter) table.autoFilter.filtering = true;
    },
    close(name) {
      if (name === 'autoFilter') inFilter = false;
      else if (name === 'filterColumn') inFilterColumn = false;
    },
    text() {},
  };
  await readXmlPart(bytes, entry, handler, budget);
  return table;
}

/**
 * The Excel tables of a sheet, found through the sheet's relationships (`tableParts` name the same
 * parts). A sheet without relationships has none; a table part the zip lacks is passed over (it only
 * tells where a totals row or a filter is).
 */
export async function readSheetTables(workbook: XlsxPackage, sheet: SheetPart, budget: ReadBudget): Promise<SheetTable[]> {
  if (!sheet.partName) return [];
  const relsEntry = workbook.find(relationshipsPartOf(sheet.partName));
  if (!relsEntry) return [];
  checkReadable(relsEntry);
  const relationships = await readRelationships(workbook.bytes, relsEntry, folderOf(sheet.partName), budget);
  const tables: SheetTable[] = [];
  const parts = [...relationships.values()].filter((relationship) => isType(relationship, 'table'));
  if (parts.length > MAX_SHEET_TABLES) {
    throw sheetError.unprocessable(
      `Sheet "${sheet.name.slice(0, 80)}" has more than ${MAX_SHEET_TABLES} tables; no passenger list has that many, so the file was not read`,
    );
  }
  for (const relationship of parts) {
    const entry = workbook.find(relationship.target);
    if (!entry) continue;
    checkReadable(entry);
    const table = await readTable(workbook.bytes, entry, budget);
    if (table) tables.push(table);
  }
  return tables;
}
