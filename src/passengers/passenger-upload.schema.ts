import { requireScope, Scope } from '../auth';
import type { GraphQLContext } from '../graphql-kit/context';
import { GraphQLUpload } from '../graphql-kit/upload';
import type { ReceivedFile } from '../shared/received-file';
import type { PassengerUploadOptions } from './passenger-upload.service';

/** Where the spreadsheet template is served, below the REST facade's base path. */
export const PASSENGER_TEMPLATE_PATH = '/api/broker/v0/upload/template.xlsx';

/**
 * The file-transfer part of the schema, written SDL-first and merged into the type-graphql schema
 * with @graphql-tools/schema: the `Upload` scalar (src/graphql-kit/upload.ts) and the upload mutations.
 * It names the `PassengerPreview` type that type-graphql builds.
 */
export const passengerUploadTypeDefs = /* GraphQL */ `
  # Described by its implementation, GraphQLUpload (src/graphql-kit/upload.ts).
  scalar Upload

  "What an upload does with rows the user does not see: hidden by hand, or by a filter."
  enum HiddenRows {
    "Leave them out (the default): the list is what the sheet shows. A warning names them."
    SKIP
    "Read them as passengers like the others. A warning names them."
    IMPORT
  }

  "How a text date such as 05/06/1980 is read when its column does not prove the order itself."
  enum DateOrder {
    "Day first: 05/06/1980 is 5 June 1980 (DD/MM/YYYY)."
    DMY
    "Month first: 05/06/1980 is 6 May 1980 (MM/DD/YYYY)."
    MDY
  }

  "How a heading was recognised."
  enum HeadingMatch {
    "The template's heading, or the field's own name (case, accents, spacing and bracketed hints aside)."
    EXACT
    "One of the accepted other headings (e.g. Cognome, Last name)."
    ALIAS
    "The client's mapping (options.columns) named the column's field."
    CLIENT
  }

  "One entry of a client's column mapping: a column, by letter or by heading, and the field it holds."
  input PassengerColumnChoice {
    "Column letter (A, AB…); give this or heading."
    column: String
    "The heading as written in the file (case, accents, spacing and bracketed hints aside); give this or column."
    heading: String
    "The passenger field the column holds (surname, name, date_born, luogonascita, nazionalita, typedoc, numberdoc, scadenza, issuingstate, email, phone, is_carring_infant, gender, row_number_parent_id), or null to ignore the column."
    field: String
  }

  "A cell value the client corrected: it replaces the file's before any rule reads the row."
  input PassengerCellCorrection {
    "Row number as the spreadsheet program shows it (as in PassengerUploadProblem.sheetRow)."
    sheetRow: Int!
    "Column letter (as in PassengerUploadProblem.column)."
    column: String!
    "The value to read instead, as text (at most 256 characters); null or empty blanks the cell."
    value: String
  }

  "How to read the list; each option left out takes its default."
  input PassengerUploadOptionsInput {
    "Rows hidden by hand or by a filter: SKIP (default) or IMPORT."
    hiddenRows: HiddenRows
    "The order of text dates in a column whose own dates read both ways; default DMY."
    dateOrder: DateOrder
    "ISO 3166-1 alpha-2 code of the region a phone number without a country code is read in when valid in none of the passenger's countries; default the deployment's."
    defaultPhoneRegion: String
    "The client's column mapping, over the automatic one (previewPassengerUpload only; at most 200 entries). A field given a column here is read from no other column."
    columns: [PassengerColumnChoice!]
    "Corrected cell values (previewPassengerUpload only; at most 20000). A correction that falls on no passenger column is a warning."
    corrections: [PassengerCellCorrection!]
  }

  "One cell (or row reference) the rules could not accept."
  type PassengerUploadProblem {
    "Row number as the spreadsheet program shows it."
    sheetRow: Int
    "Passenger number within the list, from 1."
    rowNumber: Int
    "Column letter (A, B, …) of the cell."
    column: String
    "The column's heading as written in the file."
    heading: String!
    "The passenger field the column holds (surname, date_born, …)."
    field: String
    "The cell value as read (dates as YYYY-MM-DD), null when empty."
    value: String
    "What is wrong and what is expected, starting with the heading."
    message: String!
    "A value the rules think was meant, when they know one: a text date in the other order (YYYY-MM-DD), the alpha-2 code of a misspelt country, the one telephone number a cell can honestly be read as (E.164; see docs/passenger-spreadsheet.md); null otherwise."
    suggestion: String
  }

  "A recognised column."
  type PassengerColumnMapping {
    "Column letter."
    column: String!
    "The heading as written in the file."
    heading: String!
    "The passenger field it is read as."
    field: String!
    "How the heading was recognised."
    match: HeadingMatch!
  }

  "A heading that names no passenger field: its column is ignored."
  type UnknownHeading {
    "Column letter."
    column: String!
    "The heading as written in the file."
    heading: String!
    "The passenger field the heading probably means (nearest accepted heading by edit distance), or null."
    didYouMean: String
  }

  "The options the list was read with (the defaults filled in)."
  type PassengerUploadOptionsInForce {
    "The order of text dates in columns that do not prove their own."
    dateOrder: DateOrder!
    "Null when none is configured or asked for."
    defaultPhoneRegion: String
    "What was done with hidden rows."
    hiddenRows: HiddenRows!
  }

  "A list as the service reads it, row problems included: what an importer shows before the user sends it."
  type PassengerUploadPreview {
    "The rows that read without a problem, as uploadPassengerList answers them."
    records: [PassengerPreview!]!
    "Every problem of the other rows by row (at most 1000; problemCount counts all)."
    problems: [PassengerUploadProblem!]!
    "How many problems the list has, listed or not."
    problemCount: Int!
    "The recognised columns, left to right."
    mapping: [PassengerColumnMapping!]!
    "The headings that name no passenger field (their columns are ignored), left to right."
    unknownHeadings: [UnknownHeading!]!
    "The options the list was read with."
    options: PassengerUploadOptionsInForce!
    "What uploadPassengerList would list in extensions.warnings."
    warnings: [String!]!
  }

  type Mutation {
    """
    Reads a passenger list as uploadPassengerList does, but answers its row problems instead of
    failing on them: the clean rows' records, each problem with its cell and a suggestion where the
    rules know one, the column mapping, the unknown headings and the options in force. A file the
    service cannot read as a list (not a spreadsheet, too large, no header row) is still an error.
    Stores nothing. Scope passengers:write.
    """
    previewPassengerUpload(
      "The flight the list is for (404 when unknown)."
      flightId: Int!
      "The .xlsx, .ods or CSV file, at most UPLOAD_MAX_BYTES."
      file: Upload!
      "How to read the list: date order, default phone region, hidden rows; defaults as uploadPassengerList's."
      options: PassengerUploadOptionsInput
    ): PassengerUploadPreview!

    """
    Parses a passenger list (an .xlsx or .ods workbook, or a CSV file; the format is told from the
    bytes, not the file name or type; first sheet with a recognisable header row) into the flight's
    passenger records, in row order. Stores nothing: the records are a preview to edit and send
    with pushPassengerList. Scope passengers:write. Ignored columns, hidden rows and columns,
    skipped totals rows, date columns read in an order the column did not prove, and phone
    numbers read through the default region are listed in the response's extensions.warnings.
    """
    uploadPassengerList(
      "The flight the list is for (404 when unknown); it becomes each record's idvolo."
      flightId: Int!
      "The .xlsx, .ods or CSV file, at most UPLOAD_MAX_BYTES."
      file: Upload!
      "Rows hidden by hand or by a filter: SKIP (default) or IMPORT; a warning names them either way."
      hiddenRows: HiddenRows = SKIP
      "The order of text dates in a column whose own dates read both ways (05/06/1980); a column with a date that reads one way only (17/05/1980) is read in that order. Default DMY."
      dateOrder: DateOrder
      "ISO 3166-1 alpha-2 code of the country a phone number without a country code is read in when it is valid in none of the passenger's nationality, issuing state and country of birth (each such number is a warning). Default: the deployment's PASSENGER_DEFAULT_PHONE_REGION, unset unless configured (such a number is then a problem)."
      defaultPhoneRegion: String
    ): [PassengerPreview!]!
  }

  type Query {
    "Absolute URL of the spreadsheet template (.xlsx with the canonical headings and an example row)."
    passengerTemplateUrl: String!
  }
`;

export const passengerUploadResolvers = {
  Upload: GraphQLUpload,
  Mutation: {
    uploadPassengerList: async (
      _root: unknown,
      args: { flightId: number; file: Promise<ReceivedFile> } & { [Option in keyof PassengerUploadOptions]?: PassengerUploadOptions[Option] | null },
      ctx: GraphQLContext,
    ) => {
      requireScope(ctx.principal, Scope.PassengersWrite);
      const { flightId, file, ...options } = args;
      const { records, warnings } = await ctx.services.passengerUploads.preview(flightId, file, withoutNulls(options));
      ctx.warnings.push(...warnings);
      return records;
    },
    previewPassengerUpload: async (
      _root: unknown,
      args: { flightId: number; file: Promise<ReceivedFile>; options?: { [Option in keyof PassengerUploadOptions]?: PassengerUploadOptions[Option] | null } | null },
      ctx: GraphQLContext,
    ) => {
      requireScope(ctx.principal, Scope.PassengersWrite);
      return ctx.services.passengerUploads.inspect(args.flightId, args.file, withoutNulls(args.options ?? {}));
    },
  },
  Query: {
    passengerTemplateUrl: (_root: unknown, _args: unknown, ctx: GraphQLContext) => `${ctx.baseUrl}${PASSENGER_TEMPLATE_PATH}`,
  },
};

/** The options a client gave (an argument sent as null means its default). */
function withoutNulls<T extends object>(options: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== null && value !== undefined)) as { [K in keyof T]?: Exclude<T[K], null> };
}
