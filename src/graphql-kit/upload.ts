import { GraphQLError, GraphQLScalarType } from 'graphql';
import type { ReceivedFile } from '../shared/received-file';

/**
 * A file of the request, standing where the client put it in the variables: the GraphQL multipart
 * request places one wherever its `map` field says (src/graphql/multipart-request.ts) and settles it
 * when the file part has been read, or has failed; the REST route places one it has already read.
 * Resolvers see `file`: the operation can start, and refuse what it can, while the file still arrives.
 */
export class IncomingFile {
  readonly file: Promise<ReceivedFile>;
  private settle!: { resolve(file: ReceivedFile): void; reject(error: unknown): void };

  constructor() {
    this.file = new Promise<ReceivedFile>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // A refused operation never awaits its file: its failure is nobody's unhandled rejection.
    this.file.catch(() => undefined);
  }

  /** A file read in full before the operation runs (the REST route's). */
  static received(file: ReceivedFile): IncomingFile {
    const incoming = new IncomingFile();
    incoming.arrived(file);
    return incoming;
  }

  arrived(file: ReceivedFile): void {
    this.settle.resolve(file);
  }

  /** The file could not be received: the error its resolver answers with. Later calls change nothing. */
  failed(error: unknown): void {
    this.settle.reject(error);
  }
}

/** The `Upload` scalar: an input only, whose value is an IncomingFile's `file`. */
export const GraphQLUpload = new GraphQLScalarType<Promise<ReceivedFile>, never>({
  name: 'Upload',
  description: 'A file sent with the GraphQL multipart request spec, e.g. by apollo-upload-client. The request needs the bearer token like any other.',
  parseValue(value) {
    if (value instanceof IncomingFile) return value.file;
    throw new GraphQLError('An Upload variable takes a file part of a GraphQL multipart request (named by its map field), not a JSON value');
  },
  parseLiteral(node) {
    throw new GraphQLError('An Upload cannot be written in the document: send the file as a variable, with the GraphQL multipart request spec', { nodes: node });
  },
  serialize() {
    throw new GraphQLError('Upload is an input type: it is never returned');
  },
});
