import type { Document } from 'bson';
import { CommandError, ErrorCode } from '../errors';

/**
 * MongoDB 7.0 parses its CRUD commands with strict IDL structs: a field the struct does not name is
 * refused with IDLUnknownField (40415) before anything runs. The engine presents 7.0, so it refuses
 * the same fields instead of ignoring them: a misspelt option (`{find: 'b', limt: 1}`) would
 * otherwise return other data here and fail in production.
 *
 * The lists follow MongoDB 7.0's IDL files (find_command.idl, getmore_command.idl,
 * aggregate_command.idl, count_command.idl, distinct_command.idl, write_ops.idl,
 * create_indexes.idl, drop_indexes.idl, list_collections.idl, list_indexes.idl) and
 * generic_argument.idl. Internal and deprecated fields those files accept are kept: refusing one
 * the server takes would be a divergence of its own.
 */

/** Arguments every command accepts (generic_argument.idl, API version 1 and unstable). */
const GENERIC_ARGUMENTS = [
  'apiVersion', 'apiStrict', 'apiDeprecationErrors', '$db', 'maxTimeMS', 'readConcern', 'writeConcern', 'lsid',
  'clientOperationKey', 'txnNumber', 'autocommit', 'startTransaction', 'stmtId', 'comment', '$readPreference',
  '$clusterTime', '$audit', '$client', '$configServerState', 'allowImplicitCollectionCreation', '$oplogQueryData',
  '$queryOptions', '$replData', 'databaseVersion', 'shardVersion', 'tracking_info', 'coordinator', 'maxTimeMSOpOnly',
  '$configTime', '$topologyTime', 'txnRetryCounter', 'mayBypassWriteBlocking', '$tenant', 'expectPrefix',
];

/** Fields of every write command (write_ops.idl's WriteCommandRequestBase). */
const WRITE_COMMAND_BASE = [
  'bypassDocumentValidation', 'ordered', 'stmtIds', 'isTimeseriesNamespace', 'collectionUUID', 'encryptionInformation',
  'originalQuery', 'originalCollation', 'bypassEmptyTsReplacement',
];

const COMMAND_FIELDS: Record<string, readonly string[]> = {
  find: [
    'filter', 'projection', 'sort', 'hint', 'collation', 'skip', 'limit', 'batchSize', 'ntoreturn', 'singleBatch',
    'allowDiskUse', 'min', 'max', 'returnKey', 'showRecordId', 'tailable', 'oplogReplay', 'noCursorTimeout', 'awaitData',
    'allowPartialResults', 'let', 'options', 'term', 'readOnce', 'allowSpeculativeMajorityRead', '$_requestResumeToken',
    '$_resumeAfter', '$_startAt', 'runtimeConstants', 'collectionUUID', 'encryptionInformation', 'isTimeseriesNamespace',
    'includeQueryStatsMetrics', 'querySettings',
  ],
  getMore: ['collection', 'batchSize', 'term', 'lastKnownCommittedOpTime', 'includeQueryStatsMetrics'],
  aggregate: [
    'pipeline', 'explain', 'allowDiskUse', 'cursor', 'bypassDocumentValidation', 'collation', 'hint', 'let', 'needsMerge',
    'fromMongos', 'fromRouter', '$_requestReshardingResumeToken', 'isMapReduceCommand', 'collectionUUID', 'exchange',
    'runtimeConstants', '$_passthroughToShard', 'passthroughToShard', 'encryptionInformation', '$_generateV2ResumeTokens',
    '$_isClusterQueryWithoutShardKeyCmd', '$_requestResumeToken', '$_resumeAfter', 'isTimeseriesNamespace',
    'includeQueryStatsMetrics', 'querySettings',
  ],
  count: ['query', 'limit', 'skip', 'hint', 'collation', 'fields', 'encryptionInformation', 'mirrored', 'sampleId', 'querySettings', 'includeQueryStatsMetrics'],
  distinct: ['key', 'query', 'collation', 'hint', 'mirrored', 'sampleId', 'querySettings', 'includeQueryStatsMetrics'],
  insert: ['documents', ...WRITE_COMMAND_BASE],
  update: ['updates', 'let', 'runtimeConstants', ...WRITE_COMMAND_BASE],
  delete: ['deletes', 'let', 'runtimeConstants', ...WRITE_COMMAND_BASE],
  findAndModify: [
    'query', 'fields', 'sort', 'hint', 'collation', 'arrayFilters', 'remove', 'update', 'new', 'upsert',
    'bypassDocumentValidation', 'let', 'runtimeConstants', 'encryptionInformation', 'sampleId',
    '$_allowShardKeyUpdatesWithoutFullShardKeyInQuery', 'isTimeseriesNamespace', 'bypassEmptyTsReplacement',
  ],
  createIndexes: ['indexes', 'commitQuorum', 'ignoreUnknownIndexOptions', 'isTimeseriesNamespace', 'returnOnStartIndexBuild', 'collectionUUID'],
  dropIndexes: ['index', 'collectionUUID', 'isTimeseriesNamespace'],
  listCollections: ['filter', 'nameOnly', 'authorizedCollections', 'cursor', 'includePendingDrops'],
  listIndexes: ['cursor', 'includeBuildUUIDs', 'includeIndexBuildInfo', 'isTimeseriesNamespace', 'collectionUUID'],
};

/** Aliases MongoDB registers for the same IDL command; the error names the IDL command. */
const ALIASES: Record<string, string> = { findandmodify: 'findAndModify', deleteIndexes: 'dropIndexes' };

/** One statement of `update.updates` (UpdateOpEntry) and `delete.deletes` (DeleteOpEntry). 7.0 has no `sort` here (8.0 added it). */
const STATEMENT_FIELDS: Record<'update.updates' | 'delete.deletes', ReadonlySet<string>> = {
  'update.updates': new Set([
    'q', 'u', 'c', 'arrayFilters', 'hint', 'multi', 'upsert', 'upsertSupplied', 'collation', 'sampleId',
    '$_allowShardKeyUpdatesWithoutFullShardKeyInQuery',
  ]),
  'delete.deletes': new Set(['q', 'limit', 'hint', 'collation', 'sampleId']),
};

const KNOWN_FIELDS = new Map<string, ReadonlySet<string>>(
  Object.entries(COMMAND_FIELDS).map(([command, fields]) => [command, new Set([command, ...fields, ...GENERIC_ARGUMENTS])]),
);

function unknownField(context: string, field: string): CommandError {
  return new CommandError(ErrorCode.IDLUnknownField, `BSON field '${context}.${field}' is an unknown field.`);
}

/** Refuses a field outside the command's MongoDB 7.0 IDL; commands the engine does not list here are not checked. */
export function assertKnownCommandFields(body: Document): void {
  const [name] = Object.keys(body);
  const command = ALIASES[name] ?? name;
  const known = KNOWN_FIELDS.get(command);
  if (!known) return;
  for (const field of Object.keys(body)) {
    if (field !== name && !known.has(field)) throw unknownField(command, field);
  }
}

/** Refuses a field outside MongoDB 7.0's UpdateOpEntry / DeleteOpEntry in one write statement. */
export function assertKnownStatementFields(statement: Document, context: keyof typeof STATEMENT_FIELDS): void {
  const known = STATEMENT_FIELDS[context];
  for (const field of Object.keys(statement)) {
    if (!known.has(field)) throw unknownField(context, field);
  }
}
