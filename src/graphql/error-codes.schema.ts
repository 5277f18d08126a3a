import { ErrorCode, STATUS_BY_CODE } from '../errors';

const MEANING: Record<ErrorCode, string> = {
  [ErrorCode.BAD_REQUEST]: 'The request itself is malformed (body, parameter, header).',
  [ErrorCode.BAD_USER_INPUT]: 'An argument or field is invalid; extensions.details names each one.',
  [ErrorCode.UNAUTHENTICATED]: 'No bearer token, or an invalid one (see WWW-Authenticate).',
  [ErrorCode.FORBIDDEN]: 'The token lacks the scope the operation needs.',
  [ErrorCode.NOT_FOUND]: 'The flight (or other record) does not exist.',
  [ErrorCode.METHOD_NOT_ALLOWED]: 'REST only: the path exists with other methods (see Allow).',
  [ErrorCode.NOT_ACCEPTABLE]: 'REST only: no representation the Accept header allows is offered (the message lists them).',
  [ErrorCode.CONFLICT]: 'A created id exists with other content, or an Idempotency-Key was reused with another body.',
  [ErrorCode.PRECONDITION_FAILED]: 'The list is at no version expectedVersion or expectedVersions (REST: If-Match) allows; on REST, also a read whose If-Match does not name the current ETag.',
  [ErrorCode.PAYLOAD_TOO_LARGE]: 'A body, file or list exceeds a configured limit.',
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: 'The body or file is not of the expected type (JSON; .xlsx, .ods or CSV).',
  [ErrorCode.UNPROCESSABLE]: 'Well-formed but invalid records or rows; extensions.details lists every problem.',
  [ErrorCode.TOO_MANY_REQUESTS]: 'The client exceeded its requests per minute (see Retry-After).',
  [ErrorCode.QUERY_TOO_COMPLEX]: 'The query exceeds the estimated cost limit or the token limit, checked before it runs.',
  [ErrorCode.QUERY_TIMEOUT]: 'The query ran longer than the execution time limit; ask for less (a shorter range, fewer fields or aliases).',
  [ErrorCode.PERSISTED_QUERY_HASH_MISMATCH]: 'Automatic persisted queries: extensions.persistedQuery.sha256Hash is not the SHA-256 (lowercase hex) of the query sent with it.',
  [ErrorCode.PERSISTED_QUERY_VERSION_UNSUPPORTED]: 'Automatic persisted queries: extensions.persistedQuery.version is not 1, the only version served.',
  [ErrorCode.RESPONSE_TOO_LARGE]: 'The answer would exceed the response size limit; ask for less.',
  [ErrorCode.SERVICE_UNAVAILABLE]: 'The database (or the identity provider’s key set) cannot be reached.',
  [ErrorCode.INTERNAL_SERVER_ERROR]: 'A bug on our side; the details are in the service log under the request id.',
};

/**
 * The codes of `extensions.code`, as an enum in the schema so clients can see them in Sandbox and
 * generate types from them. No field returns it: errors carry the code as a string.
 */
export const errorCodeTypeDefs = /* GraphQL */ `
  "Values of extensions.code on errors, with the HTTP status each travels with."
  enum ErrorCode {
${Object.values(ErrorCode)
  .map((code) => `    "${STATUS_BY_CODE[code]}: ${MEANING[code]}"\n    ${code}`)
  .join('\n')}
  }
`;
