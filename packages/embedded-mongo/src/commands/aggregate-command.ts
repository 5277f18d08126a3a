import type { Document } from 'bson';
import { cloneValue, isPlainObject } from '../bson-values';
import type { CommandHandler } from '../command-context';
import { CommandError, ErrorCode, unsupportedFeature } from '../errors';
import { engineAggregator, isKnownStage } from '../mingo-context';
import { isPlainProjection, lookupByEquality } from '../lookup-stage';
import { compileProjection } from '../projection';
import { findMatchingDocuments, inHintedOrder, prepareFilter, sortDocuments } from '../query-execution';
import { arrayArgument, assertHintExists, documentArgument, letVariables } from './arguments';

/** Stages that never write into the documents flowing through them, so stored documents can feed them directly. */
const NON_MUTATING_STAGES = new Set(['$match', '$sort', '$limit', '$skip', '$count', '$group', '$sortByCount', '$unwind', '$project']);
/** MongoDB 7.0 stages the engine cannot run: refused (CommandNotSupported) rather than called unknown. */
const UNSUPPORTED_STAGES = new Set([
  '$out', '$merge', '$currentOp', '$listSessions', '$listLocalSessions', '$collStats', '$indexStats', '$planCacheStats', '$search', '$searchMeta',
  '$vectorSearch', '$changeStream', '$changeStreamSplitLargeEvent', '$geoNear', '$listSearchIndexes', '$listSampledQueries', '$shardedDataDistribution',
  '$queryStats', '$listCatalog', '$querySettings',
]);

function stageName(stage: unknown): string {
  if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
    throw new CommandError(40323, 'A pipeline stage specification object must contain exactly one field.');
  }
  return Object.keys(stage)[0];
}

function mayMutate(stage: Document, name: string): boolean {
  if (name === '$lookup') return isPlainObject(stage.$lookup) && stage.$lookup.pipeline !== undefined;
  return !NON_MUTATING_STAGES.has(name);
}

/**
 * `aggregate`. A leading `$match` (through indexes) and `$sort`, then equality `$lookup`s and plain
 * `$project`s, run here; the rest of the pipeline runs in mingo. Documents are deep-copied only
 * when a mingo stage may write into them.
 */
const aggregate: CommandHandler = ({ engine, body, database }) => {
  const pipeline = arrayArgument(body, 'pipeline', 'aggregate') as Document[];
  if (body.explain === true) throw unsupportedFeature('aggregate with explain');
  const cursorOptions = documentArgument(body, 'cursor', 'aggregate');
  if (!cursorOptions) {
    throw new CommandError(ErrorCode.FailedToParse, "The 'cursor' option is required, except for aggregate with the explain argument");
  }
  const names = pipeline.map(stageName);
  for (const name of names) {
    if (UNSUPPORTED_STAGES.has(name)) throw unsupportedFeature(`The ${name} aggregation stage`);
    if (!isKnownStage(name)) throw new CommandError(ErrorCode.UnrecognizedPipelineStage, `Unrecognized pipeline stage name: '${name}'`);
  }

  const collectionName = typeof body.aggregate === 'string' ? body.aggregate : undefined;
  const collection = collectionName ? engine.storage.getCollection(database, collectionName) : undefined;
  assertHintExists(collection, body.hint);
  const variables = letVariables(body);
  // Every $match is checked (and $all rewritten) once, before mingo runs it.
  let remaining = pipeline.map((stage, i) => (names[i] === '$match' && isPlainObject(stage.$match) ? { $match: prepareFilter(stage.$match, collection) } : stage));
  let input: Document[];
  if (names[0] === '$match' && isPlainObject(pipeline[0].$match)) {
    input = findMatchingDocuments(collection, pipeline[0].$match, { variables, hint: body.hint });
    remaining = remaining.slice(1);
  } else {
    input = collection ? (inHintedOrder(collection, collection.documents.values(), body.hint) ?? [...collection.documents.values()]) : [];
  }
  // A leading $sort (with the $limit after it) runs here: MongoDB's cross-type order, and only
  // the first `limit` documents are fully sorted.
  if (remaining.length > 0 && isPlainObject(remaining[0].$sort)) {
    const next = remaining[1];
    const limit = next && typeof next.$limit === 'number' && next.$limit > 0 ? next.$limit : undefined;
    input = sortDocuments(input, remaining[0].$sort, limit);
    if (limit !== undefined) input = input.slice(0, limit);
    remaining = remaining.slice(limit !== undefined ? 2 : 1);
  }
  // Then, while they can, stages the engine runs itself: equality $lookups (through the foreign
  // collection's index) and plain $projects. Their output documents are new objects, but they
  // share field values with stored documents, so mingo stages that may write still get copies.
  const storedCollection = (name: string) => engine.storage.getCollection(database, name);
  // Whether `input` holds documents made by these stages (a plain projection's are new objects), which later ones may extend in place.
  let owned = false;
  for (;;) {
    const stage = remaining[0];
    let output: Document[] | undefined;
    if (stage && isPlainObject(stage.$lookup)) output = lookupByEquality(input, stage.$lookup, storedCollection, owned);
    else if (stage && isPlainObject(stage.$project) && isPlainProjection(stage.$project)) output = input.map(compileProjection(stage.$project, undefined)!);
    if (!output) break;
    input = output;
    owned = true;
    remaining = remaining.slice(1);
  }
  const mutates = remaining.some((stage) => mayMutate(stage, stageName(stage)));
  if (mutates) input = input.map(cloneValue);

  const resolveCollection = (name: string): Document[] => {
    const documents = [...(engine.storage.getCollection(database, name)?.documents.values() ?? [])];
    return mutates ? documents.map(cloneValue) : documents;
  };
  const results = remaining.length === 0 ? input : (engineAggregator(remaining, { collectionResolver: resolveCollection, ...(variables ? { variables } : {}) }).run(input) as Document[]);
  const batchSize = typeof cursorOptions.batchSize === 'number' ? cursorOptions.batchSize : undefined;
  const namespace = collectionName ? `${database}.${collectionName}` : `${database}.$cmd.aggregate`;
  return engine.cursors.open(namespace, results, { batchSize });
};

export const aggregateCommands: Record<string, CommandHandler> = { aggregate };
