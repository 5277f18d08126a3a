import { GraphQLUpload, type FileUpload } from 'graphql-upload-minimal';
import { requireScope, Scope } from '../auth';
import type { GraphQLContext } from '../context';

/** Where the spreadsheet template is served, below the REST facade's base path. */
export const PASSENGER_TEMPLATE_PATH = '/api/broker/v0/upload/template.xlsx';

/**
 * The file-transfer part of the schema, written SDL-first and merged into the type-graphql schema
 * with @graphql-tools/schema: the `Upload` scalar of graphql-upload-minimal and the upload mutation.
 * It names the `Passenger` type that type-graphql builds.
 */
export const passengerUploadTypeDefs = /* GraphQL */ `
  "A file sent with the GraphQL multipart request spec (graphql-upload-minimal). Clients must send the Apollo-Require-Preflight header."
  scalar Upload

  type Mutation {
    """
    Parses an .xlsx passenger list (first sheet with a recognisable header row) into the flight's
    passenger records, in row order. Stores nothing: the records are a preview to edit and send
    with pushPassengerList. Scope passengers:write. Ignored columns are listed in the response's
    extensions.warnings.
    """
    uploadPassengerList(flightId: Int!, file: Upload!): [Passenger!]!
  }

  type Query {
    "Absolute URL of the spreadsheet template (.xlsx with the canonical headings and an example row)."
    passengerTemplateUrl: String!
  }
`;

export const passengerUploadResolvers = {
  Upload: GraphQLUpload,
  Mutation: {
    uploadPassengerList: async (_root: unknown, args: { flightId: number; file: Promise<FileUpload> }, ctx: GraphQLContext) => {
      requireScope(ctx.principal, Scope.PassengersWrite);
      const { records, warnings } = await ctx.services.passengerUploads.preview(args.flightId, args.file);
      ctx.warnings.push(...warnings);
      return records;
    },
  },
  Query: {
    passengerTemplateUrl: (_root: unknown, _args: unknown, ctx: GraphQLContext) => `${ctx.baseUrl}${PASSENGER_TEMPLATE_PATH}`,
  },
};
