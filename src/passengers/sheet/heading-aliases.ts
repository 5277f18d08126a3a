import { closest, distance } from 'fastest-levenshtein';
import { foldText } from '../country-lookup';
import type { PassengerFieldName } from '../passenger.fields';

/** A passenger field a sheet column can hold: the passenger's own fields plus the parent row. */
export type SheetField = PassengerFieldName | 'row_number_parent_id';

export interface SheetColumn {
  field: SheetField;
  /** The heading the template writes (readable English). */
  heading: string;
  required: boolean;
  /** Headings recognised for the column, besides `heading` and `field`; compared by `headingKey`. */
  aliases: readonly string[];
  /** One line for the documentation: what the cells hold. */
  content: string;
}

/**
 * The accepted column headings, in template order. This table is the single source for the parser,
 * the template and the documentation (docs/passenger-spreadsheet.md is checked against it).
 */
export const PASSENGER_SHEET_COLUMNS: readonly SheetColumn[] = [
  {
    field: 'surname',
    heading: 'Surname',
    required: true,
    aliases: ['last name', 'lastname', 'family name', 'cognome'],
    content: 'text; stored in upper case',
  },
  {
    field: 'name',
    heading: 'Name',
    required: true,
    aliases: ['first name', 'firstname', 'given name', 'given names', 'forename', 'nome'],
    content: 'text; stored in upper case',
  },
  {
    field: 'date_born',
    heading: 'Date of birth',
    required: true,
    aliases: ['birth date', 'birthdate', 'dob', 'data di nascita', 'data nascita', 'nato il'],
    content: 'date',
  },
  {
    field: 'luogonascita',
    heading: 'Country of birth',
    required: true,
    aliases: [
      'place of birth',
      'birth country',
      'birthplace',
      'luogo di nascita',
      'luogo nascita',
      'paese di nascita',
      'stato di nascita',
      'nazione di nascita',
    ],
    content: 'country',
  },
  {
    field: 'nazionalita',
    heading: 'Nationality',
    required: true,
    aliases: ['citizenship', 'nazionalità', 'cittadinanza'],
    content: 'country',
  },
  {
    field: 'typedoc',
    heading: 'Document type',
    required: true,
    aliases: ['doc type', 'type of document', 'id type', 'tipo documento', 'tipo doc', 'tipo di documento'],
    content: 'P (passport) or I (identity card); the words are accepted too',
  },
  {
    field: 'numberdoc',
    heading: 'Document number',
    required: true,
    aliases: [
      'doc number',
      'document no',
      'doc no',
      'passport number',
      'passport no',
      'id number',
      'numero documento',
      'numero doc',
      'n documento',
      'nr documento',
      'num documento',
      'numero passaporto',
    ],
    content: 'letters and digits, spaces removed',
  },
  {
    field: 'scadenza',
    heading: 'Document expiry',
    required: true,
    aliases: [
      'expiry date',
      'expiry',
      'expiration',
      'expiration date',
      'date of expiry',
      'valid until',
      'data di scadenza',
      'data scadenza',
      'scadenza documento',
    ],
    content: 'date, not before the date of birth',
  },
  {
    field: 'issuingstate',
    heading: 'Issuing state',
    required: true,
    aliases: [
      'issuing country',
      'country of issue',
      'state of issue',
      'issued by',
      'stato di rilascio',
      'paese di rilascio',
      'stato emittente',
      'rilasciato da',
    ],
    content: 'country',
  },
  {
    field: 'email',
    heading: 'E-mail',
    required: false,
    aliases: ['email address', 'e-mail address', 'mail', 'indirizzo email', 'posta elettronica'],
    content: 'e-mail address (a hyperlink cell is read by its text)',
  },
  {
    field: 'phone',
    heading: 'Phone',
    required: false,
    aliases: [
      'phone number',
      'telephone',
      'mobile',
      'mobile phone',
      'mobile number',
      'telefono',
      'cellulare',
      'numero di telefono',
      'tel',
    ],
    content: 'telephone number; stored as E.164',
  },
  {
    field: 'is_carring_infant',
    heading: 'Carrying infant',
    required: false,
    aliases: ['infant', 'with infant', 'carrying an infant', 'infant on lap', 'con infant', 'con neonato'],
    content: 'yes / no (also sì, ja, oui, nein, non, x, true, false, 1, 0, a tick ✓ ✔ ☑ ☒ or +, an empty box ☐ or a dash for no); empty means no',
  },
  {
    field: 'gender',
    heading: 'Gender',
    required: true,
    aliases: ['sex', 'sesso', 'genere'],
    content: 'M, F or I (also male / maschio / männlich / homme / masculin, female / femmina / weiblich / femme / féminin)',
  },
  {
    field: 'row_number_parent_id',
    heading: 'Parent row',
    required: false,
    aliases: [
      'parent row number',
      'parent',
      'accompanying adult',
      'accompagnatore',
      'riga accompagnatore',
      'adult row',
    ],
    content: 'for a passenger travelling with an adult: the adult’s passenger number (1 = first passenger row)',
  },
];

/**
 * The comparison key of a heading: bracketed hints such as "(DD/MM/YYYY)" dropped, then case,
 * accents, spacing and punctuation ignored, so "Data di nascita*" and "DATA_DI_NASCITA" match.
 */
export function headingKey(heading: string): string {
  return foldText(heading.replace(/\([^)]*\)|\[[^\]]*\]/g, ''));
}

const BY_KEY = new Map<string, SheetColumn>();
for (const column of PASSENGER_SHEET_COLUMNS) {
  for (const alias of [column.heading, column.field, ...column.aliases]) {
    const key = headingKey(alias);
    const other = BY_KEY.get(key);
    if (other && other !== column) throw new Error(`heading alias "${alias}" is claimed by ${other.field} and ${column.field}`);
    BY_KEY.set(key, column);
  }
}

/** The column a heading names, or undefined. */
export function matchHeading(heading: string): SheetColumn | undefined {
  return BY_KEY.get(headingKey(heading));
}

/** How a heading was matched: the template's heading or the field name itself, or one of its aliases. */
export type HeadingMatch = 'EXACT' | 'ALIAS';

export function headingMatchKind(heading: string, column: SheetColumn): HeadingMatch {
  const key = headingKey(heading);
  return key === headingKey(column.heading) || key === headingKey(column.field) ? 'EXACT' : 'ALIAS';
}

const KEYS = [...BY_KEY.keys()];

/**
 * The field a heading that names none probably meant ("Surnme" → surname): the nearest accepted
 * heading by edit distance, when at most a third of the heading (and at most 3 edits) differs.
 */
export function didYouMean(heading: string): SheetField | undefined {
  const key = headingKey(heading);
  if (key.length < 3 || key.length > 60) return undefined;
  const nearest = closest(key, KEYS);
  const edits = distance(key, nearest);
  if (edits > Math.min(3, Math.floor(key.length / 3))) return undefined;
  return BY_KEY.get(nearest)?.field;
}
