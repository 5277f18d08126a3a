import { calculateObjectSize, ObjectId, type Document } from 'bson';
import { isPlainObject } from '../bson-values';
import { Collection, type WriteJournal } from '../collection';
import type { CommandContext, CommandHandler } from '../command-context';
import { withIdFirst } from '../document-paths';
import { CommandError, ErrorCode, failsWholeCommand, writeErrorEntry } from '../errors';
import { findMatchingDocuments } from '../query-execution';
import { applyUpdate, buildUpsertDocument, type UpdateSpec } from '../update';
import { arrayArgument, assertHintExists, assertSimpleCollation, collectionNameArgument, letVariables } from './arguments';

/** Gives a document its `_id` (first, as MongoDB stores it) and rejects ids MongoDB rejects. */
export function prepareForInsert(raw: unknown): Document {
  if (!isPlainObject(raw)) throw new CommandError(ErrorCode.TypeMismatch, 'Document to insert must be an object');
  if (Array.isArray(raw._id)) throw new CommandError(53, `The '_id' value cannot be of type array`);
  if (raw._id instanceof RegExp) throw new CommandError(53, `The '_id' value cannot be of type regex`);
  const dollarKey = firstDollarKey(raw._id);
  if (dollarKey !== undefined) throw new CommandError(52, `_id fields may not contain '$'-prefixed fields: ${dollarKey} is not valid for storage.`);
  return '_id' in raw && raw._id !== undefined ? withIdFirst(raw) : { _id: new ObjectId(), ...raw };
}

/** MongoDB's largest user document: 16 MiB of BSON. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

const TOO_LARGE_MESSAGES = {
  insert: (size: number) => `object to insert too large. size in bytes: ${size}, max size: ${MAX_DOCUMENT_BYTES}`,
  upsert: () => `Document to upsert is larger than ${MAX_DOCUMENT_BYTES}`,
  update: () => `Resulting document after update is larger than ${MAX_DOCUMENT_BYTES}`,
};

/**
 * Refuses a document about to be stored that is larger than 16 MiB of BSON, with MongoDB's
 * message for the way it was written and the BSONObjectTooLarge code (10334); returns it otherwise.
 */
export function assertDocumentSize(document: Document, write: keyof typeof TOO_LARGE_MESSAGES): Document {
  const size = calculateObjectSize(document);
  if (size > MAX_DOCUMENT_BYTES) throw new CommandError(ErrorCode.BSONObjectTooLarge, TOO_LARGE_MESSAGES[write](size));
  return document;
}

/** The collection a write command targets, created only once something is written to it. */
export interface LazyCollection {
  existing(): Collection | undefined;
  create(): Collection;
}

function lazyCollection(context: CommandContext, name: string, journal: WriteJournal | undefined): LazyCollection {
  const { storage } = context.engine;
  return {
    existing: () => storage.getCollection(context.database, name),
    create: () => storage.ensureCollection(context.database, name, journal),
  };
}

function statementList(body: Document, field: string, command: string): Document[] {
  const statements = arrayArgument(body, field, command);
  if (statements.length === 0) throw new CommandError(ErrorCode.InvalidLength, `Write batch sizes must be between 1 and 100000. Got 0 operations.`);
  return statements as Document[];
}

const insert: CommandHandler = async (context) => {
  const name = collectionNameArgument(context.body, 'insert');
  const documents = statementList(context.body, 'documents', 'insert');
  const ordered = context.body.ordered !== false;
  const journal = await context.beginWrite();
  const collection = context.engine.storage.ensureCollection(context.database, name, journal);
  const writeErrors: Document[] = [];
  let inserted = 0;
  for (let index = 0; index < documents.length; index += 1) {
    try {
      collection.insert(assertDocumentSize(prepareForInsert(documents[index]), 'insert'), journal);
      inserted += 1;
    } catch (error) {
      if (failsWholeCommand(error)) throw error;
      writeErrors.push(writeErrorEntry(index, error));
      if (ordered) break;
    }
  }
  return { n: inserted, ...(writeErrors.length > 0 ? { writeErrors } : {}), ok: 1 };
};

interface UpdateStatementResult {
  matched: number;
  modified: number;
  upsertedId?: unknown;
}

/** Runs one update statement (`{q, u, upsert, multi, arrayFilters}`) against a collection. */
export function runUpdateStatement(target: LazyCollection, statement: Document, journal: WriteJournal | undefined, variables?: Document): UpdateStatementResult {
  const filter = isPlainObject(statement.q) ? statement.q : {};
  const update = statement.u as UpdateSpec;
  if (update === undefined || (!Array.isArray(update) && !isPlainObject(update))) {
    throw new CommandError(ErrorCode.FailedToParse, "BSON field 'update.updates.u' is missing but a required field");
  }
  const multi = statement.multi === true;
  const arrayFilters = Array.isArray(statement.arrayFilters) ? (statement.arrayFilters as Document[]) : undefined;
  if (multi && !Array.isArray(update) && Object.keys(update).length > 0 && !Object.keys(update)[0].startsWith('$')) {
    throw new CommandError(ErrorCode.FailedToParse, 'multi update is not supported for replacement-style update');
  }
  // The engine presents MongoDB 7.0, which has no `sort` on update statements (8.0 added it): refuse it
  // as 7.0 does, so code relying on it fails here as it would on the server the engine stands for.
  if (statement.sort !== undefined) throw new CommandError(40415, "BSON field 'update.updates.sort' is an unknown field.");
  assertSimpleCollation(statement.collation);
  assertHintExists(target.existing(), statement.hint);
  const targets = findMatchingDocuments(target.existing(), filter, { limit: multi ? undefined : 1, variables });
  if (targets.length === 0) {
    if (statement.upsert !== true) return { matched: 0, modified: 0 };
    const document = assertDocumentSize(buildUpsertDocument(filter, update, arrayFilters, variables), 'upsert');
    target.create().insert(document, journal);
    return { matched: 0, modified: 0, upsertedId: document._id };
  }
  const collection = target.create();
  let modified = 0;
  for (const current of targets) {
    const outcome = applyUpdate(current, update, { filter, arrayFilters, isInsert: false, variables });
    if (!outcome.changed) continue;
    collection.replace(Collection.documentKey(current), assertDocumentSize(outcome.document, 'update'), journal);
    modified += 1;
  }
  return { matched: targets.length, modified };
}

const update: CommandHandler = async (context) => {
  const name = collectionNameArgument(context.body, 'update');
  const statements = statementList(context.body, 'updates', 'update');
  const ordered = context.body.ordered !== false;
  const journal = await context.beginWrite();
  const target = lazyCollection(context, name, journal);
  const variables = letVariables(context.body);
  const writeErrors: Document[] = [];
  const upserted: Document[] = [];
  let matched = 0;
  let modified = 0;
  for (let index = 0; index < statements.length; index += 1) {
    try {
      const result = runUpdateStatement(target, statements[index], journal, variables);
      matched += result.matched;
      modified += result.modified;
      if (result.upsertedId !== undefined) upserted.push({ index, _id: result.upsertedId });
    } catch (error) {
      if (failsWholeCommand(error)) throw error;
      writeErrors.push(writeErrorEntry(index, error));
      if (ordered) break;
    }
  }
  return {
    n: matched + upserted.length,
    nModified: modified,
    ...(upserted.length > 0 ? { upserted } : {}),
    ...(writeErrors.length > 0 ? { writeErrors } : {}),
    ok: 1,
  };
};

const deleteCommand: CommandHandler = async (context) => {
  const name = collectionNameArgument(context.body, 'delete');
  const statements = statementList(context.body, 'deletes', 'delete');
  const ordered = context.body.ordered !== false;
  const journal = await context.beginWrite();
  const collection = context.engine.storage.getCollection(context.database, name);
  const variables = letVariables(context.body);
  const writeErrors: Document[] = [];
  let deleted = 0;
  for (let index = 0; index < statements.length; index += 1) {
    try {
      const statement = statements[index];
      const limit = Number(statement.limit ?? 0);
      if (limit !== 0 && limit !== 1) throw new CommandError(ErrorCode.FailedToParse, `The limit field in delete objects must be 0 or 1. Got ${limit}`);
      const filter = isPlainObject(statement.q) ? statement.q : {};
      assertSimpleCollation(statement.collation);
      assertHintExists(collection, statement.hint);
      // Matched even when the collection is missing, so a malformed filter is still refused.
      const matches = findMatchingDocuments(collection, filter, { limit: limit === 1 ? 1 : undefined, variables });
      if (!collection) continue;
      for (const document of matches) {
        collection.delete(Collection.documentKey(document), journal);
        deleted += 1;
      }
    } catch (error) {
      if (failsWholeCommand(error)) throw error;
      writeErrors.push(writeErrorEntry(index, error));
      if (ordered) break;
    }
  }
  return { n: deleted, ...(writeErrors.length > 0 ? { writeErrors } : {}), ok: 1 };
};

export const writeCommands: Record<string, CommandHandler> = { insert, update, delete: deleteCommand };

/** The first `$`-prefixed key inside an `_id` value (MongoDB refuses them there: DollarPrefixedFieldName). */
function firstDollarKey(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date || value instanceof RegExp || '_bsontype' in value) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (key.startsWith('$')) return key;
    const nested = firstDollarKey(inner);
    if (nested !== undefined) return nested;
  }
  return undefined;
}
