import { missingColumnProblems, recogniseHeaderRow, type ColumnChoices, type HeadingCell } from '../../../src/passengers/sheet/header-row';
import { headingKey, type SheetField } from '../../../src/passengers/sheet/heading-aliases';

/** Heading cells from column A on; undefined leaves a column out. */
const row = (...texts: (string | undefined)[]): HeadingCell[] =>
  texts.flatMap((text, i) => (text === undefined ? [] : [{ column: i + 1, text }]));

/** Every column the template has, in its order, as its own headings. */
const TEMPLATE = ['Surname', 'Name', 'Date of birth', 'Country of birth', 'Nationality', 'Document type', 'Document number', 'Document expiry', 'Issuing state', 'E-mail', 'Phone', 'Carrying infant', 'Gender', 'Parent row'];

function choices(byColumn: [number, SheetField | null][] = [], byHeading: [string, SheetField | null][] = []): ColumnChoices {
  return { byColumn: new Map(byColumn), byHeading: new Map(byHeading.map(([heading, field]) => [headingKey(heading), field])) };
}

describe('recogniseHeaderRow', () => {
  it("reads the template's own headings as every field, in order, matched exactly", () => {
    const header = recogniseHeaderRow(3, row(...TEMPLATE));
    expect(header).toBeDefined();
    expect(header!.sheetRow).toBe(3);
    expect(header!.columns.map((c) => [c.column, c.field, c.match])).toEqual([
      [1, 'surname', 'EXACT'], [2, 'name', 'EXACT'], [3, 'date_born', 'EXACT'], [4, 'luogonascita', 'EXACT'], [5, 'nazionalita', 'EXACT'],
      [6, 'typedoc', 'EXACT'], [7, 'numberdoc', 'EXACT'], [8, 'scadenza', 'EXACT'], [9, 'issuingstate', 'EXACT'], [10, 'email', 'EXACT'],
      [11, 'phone', 'EXACT'], [12, 'is_carring_infant', 'EXACT'], [13, 'gender', 'EXACT'], [14, 'row_number_parent_id', 'EXACT'],
    ]);
    expect(header!.problems).toEqual([]);
    expect(header!.ignored).toEqual([]);
    expect(header!.unknown).toEqual([]);
    expect(header!.headingOf.get('date_born')).toBe('Date of birth');
  });

  it('matches aliases in other languages and spellings, keeping the heading as written (trimmed)', () => {
    const header = recogniseHeaderRow(1, row('  COGNOME ', 'Nome', 'Data di nascita (GG/MM/AAAA)', undefined, 'surname'));
    expect(header!.columns).toEqual([
      { column: 1, heading: 'COGNOME', field: 'surname', match: 'ALIAS' },
      { column: 2, heading: 'Nome', field: 'name', match: 'ALIAS' },
      { column: 3, heading: 'Data di nascita (GG/MM/AAAA)', field: 'date_born', match: 'ALIAS' },
    ]);
    expect(header!.headingOf.get('surname')).toBe('COGNOME');
  });

  it('is no header row when fewer than two passenger fields are named', () => {
    expect(recogniseHeaderRow(1, row('Passenger list', '', 'Flight 7'))).toBeUndefined();
    expect(recogniseHeaderRow(1, row('Surname', 'Notes'))).toBeUndefined();
    expect(recogniseHeaderRow(1, [])).toBeUndefined();
    // A field named twice counts once.
    expect(recogniseHeaderRow(1, row('Surname', 'Cognome'))).toBeUndefined();
    expect(recogniseHeaderRow(1, row('Surname', 'Name'))).toBeDefined();
  });

  it('lists the required columns that are missing, with headings they may have', () => {
    const header = recogniseHeaderRow(4, row('Surname', 'Name'));
    expect(header!.problems.map((p) => p.field)).toEqual(['date_born', 'luogonascita', 'nazionalita', 'typedoc', 'numberdoc', 'scadenza', 'issuingstate', 'gender']);
    expect(header!.problems[0]).toEqual({
      field: 'date_born',
      column: 'date_born',
      sheet_row: 4,
      message: 'Required column "Date of birth" is missing (headings accepted include "Date of birth", "birth date", "birthdate", "dob")',
    });
  });

  it('ignores headings that name no field, saying so, and lists them', () => {
    const header = recogniseHeaderRow(2, row('Surname', 'Seat', '', '   ', 'Name', 'x'.repeat(90)));
    expect(header!.ignored).toEqual([
      'Column B "Seat" is not a passenger field and was ignored',
      `Column F "${'x'.repeat(79)}…" is not a passenger field and was ignored`,
    ]);
    expect(header!.unknown).toEqual([{ column: 2, heading: 'Seat' }, { column: 6, heading: `${'x'.repeat(79)}…` }]);
  });

  it('takes no text over 200 characters for a heading, whatever it starts with', () => {
    const header = recogniseHeaderRow(1, row('Name', 'Date of birth', `Surname (${'x'.repeat(200)})`, `${' '.repeat(200)}Gender${' '.repeat(200)}`));
    // The bracketed hint would be dropped and the heading read as Surname, were it not so long; the
    // spaces around a heading do not count.
    expect(header!.columns.map((c) => c.field)).toEqual(['name', 'date_born', 'gender']);
    const justOver = `${'Surname'}${'('.padEnd(194, 'x')})`;
    expect(justOver.length).toBe(202);
    expect(recogniseHeaderRow(1, row('Name', 'Date of birth', justOver))!.columns.map((c) => c.field)).toEqual(['name', 'date_born']);
    const atLimit = `Surname(${'x'.repeat(191)})`;
    expect(atLimit.length).toBe(200);
    expect(recogniseHeaderRow(1, row('Name', 'Date of birth', atLimit))!.columns.map((c) => c.field)).toEqual(['name', 'date_born', 'surname']);
  });

  it('refuses two columns holding one field, naming both (and saying when one is hidden)', () => {
    const header = recogniseHeaderRow(5, row('Surname', 'Name', 'Cognome'));
    expect(header!.columns.map((c) => c.column)).toEqual([1, 2]);
    expect(header!.problems[0]).toEqual({
      field: 'Cognome',
      column: 'Cognome',
      sheet_row: 5,
      message: 'Columns A "Surname" and C "Cognome" both hold surname; keep only one',
    });
    const hidden = recogniseHeaderRow(5, [{ column: 1, text: 'Surname', hidden: true }, { column: 2, text: 'Name' }, { column: 3, text: 'Last name' }]);
    expect(hidden!.problems[0].message).toBe(
      'Columns A "Surname" (a hidden column) and C "Last name" both hold surname; keep only one (unhide the columns to see both, then delete one)',
    );
    const laterHidden = recogniseHeaderRow(5, [{ column: 1, text: 'Surname' }, { column: 2, text: 'Name' }, { column: 3, text: 'Last name', hidden: true }]);
    expect(laterHidden!.problems[0].message).toBe(
      'Columns A "Surname" and C "Last name" (a hidden column) both hold surname; keep only one (unhide the columns to see both, then delete one)',
    );
  });

  it("follows the client's mapping by column and by heading before the alias table", () => {
    const header = recogniseHeaderRow(1, row('Cognome', 'Prénom', 'Geburtsdatum', 'Seat'), choices([[2, 'name']], [['geburtsdatum', 'date_born']]));
    expect(header!.columns).toEqual([
      { column: 1, heading: 'Cognome', field: 'surname', match: 'ALIAS' },
      { column: 2, heading: 'Prénom', field: 'name', match: 'CLIENT' },
      { column: 3, heading: 'Geburtsdatum', field: 'date_born', match: 'CLIENT' },
    ]);
    // A column chosen by number wins over a choice by its heading.
    const both = recogniseHeaderRow(1, row('Surname', 'X'), choices([[2, 'name']], [['X', 'gender']]));
    expect(both!.columns.map((c) => c.field)).toEqual(['surname', 'name']);
  });

  it('ignores a column the mapping sets to null, and any other column holding a field the mapping placed', () => {
    const header = recogniseHeaderRow(1, row('Surname', 'Name', 'Nome', 'Family name'), choices([[2, null], [3, 'name']], [['family name', 'surname']]));
    expect(header!.columns.map((c) => [c.column, c.field, c.match])).toEqual([[3, 'name', 'CLIENT'], [4, 'surname', 'CLIENT']]);
    expect(header!.ignored).toEqual([
      'Column A "Surname" was ignored: the mapping reads surname from another column',
      'Column B "Name" was ignored, as the mapping asked',
    ]);
    expect(header!.problems.some((p) => p.message.includes('both hold'))).toBe(false);
  });

  it('matches a mapped heading only up to 200 characters, and an empty cell never', () => {
    const long = 'y'.repeat(201);
    const header = recogniseHeaderRow(1, row('Surname', 'Name', long, ''), choices([[4, 'gender']], [[long, 'date_born']]));
    expect(header!.columns.map((c) => c.field)).toEqual(['surname', 'name']);
    const at = 'y'.repeat(200);
    expect(recogniseHeaderRow(1, row('Surname', 'Name', at), choices([], [[at, 'date_born']]))!.columns.map((c) => c.field)).toEqual(['surname', 'name', 'date_born']);
  });
});

describe('missingColumnProblems', () => {
  it('names every required field absent, without a sheet row when none is given', () => {
    const present = new Map<SheetField, string>([['surname', 'Surname'], ['name', 'Name'], ['date_born', 'DOB'], ['luogonascita', 'x'], ['nazionalita', 'x'], ['typedoc', 'x'], ['numberdoc', 'x'], ['scadenza', 'x'], ['issuingstate', 'x']]);
    expect(missingColumnProblems(present)).toEqual([
      { field: 'gender', column: 'gender', message: 'Required column "Gender" is missing (headings accepted include "Gender", "sex", "sesso", "genere")' },
    ]);
    present.set('gender', 'Sex');
    expect(missingColumnProblems(present, 2)).toEqual([]);
  });
});
