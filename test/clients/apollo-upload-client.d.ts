// apollo-upload-client ships JavaScript with JSDoc types only; this is the part the tests use.
declare module 'apollo-upload-client/UploadHttpLink.mjs' {
  import { ApolloLink } from '@apollo/client';

  export default class UploadHttpLink extends ApolloLink {
    constructor(options?: { uri?: string; headers?: Record<string, string>; fetch?: typeof fetch; useGETForQueries?: boolean });
  }
}
