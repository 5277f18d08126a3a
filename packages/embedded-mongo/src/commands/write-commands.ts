import { calculateObjectSize, ObjectId, type Document } from 'bson';
import { isPlainObject } from '../bson-values';
import { Collection, type WriteJournal } from '../collection';
import type { CommandContext, CommandHandler } from '../command-context';
import { withIdFirst } from '../document-paths';
import { CommandError, ErrorCode, failsWholeCommand, writeErrorEntry } from '../errors';
import { findMatchingDocuments } from '../query-execution';
import { applyUpdate, buildUpsertDocument, type UpdateSpec } from '../update';
import { BlockedByTransaction, deadlineOf, retryWhenBlocked } from '../write-waits';
import { arrayArgument, assertHintExists, assertSimpleCollation, collectionNameArgument, letVariables } from './arguments';
import { assertKnownStatementFields } from './known-fields';

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

function lazyCollection(context: CommandContext, name: string): LazyCollection {
  const { storage } = context.engine;
  return {
    existing: () => storage.getCollection(context.database, name),
    create: () => storage.ensureCollection(context.database, name),
  };
}

function statementList(body: Document, field: string, command: string): Document[] {
  const statements = arrayArgument(body, field, command);
  if (statements.length === 0) throw new CommandError(ErrorCode.InvalidLength, `Write batch sizes must be between 1 and 100000. Got 0 operations.`);
  // MongoDB parses the whole batch before running a statement: an unknown field (such as 8.0's
  // `sort`, which 7.0 lacks) fails the command, not just its statement.
  const context = `${command}.${field}`;
  if (context === 'update.updates' || context === 'delete.deletes') {
    for (const statement of statements) if (isPlainObject(statement)) assertKnownStatementFields(statement, context);
  }
  return statements as Document[];
}

/**
 * Runs one statement of a write command. Outside a transaction a statement that meets a document
 * an open transaction has written throws BlockedByTransaction before changing anything; it then
 * waits for that transaction to end and runs again on the data as it is then (MongoDB's behaviour).
 * The common case, nothing blocked, stays synchronous.
 */
function runStatement<T>(attempt: () => T, deadline: number | undefined): T | Promise<T> {
  try {
    return attempt();
  } catch (error) {
    if (error instanceof BlockedByTransaction) return retryWhenBlocked(attempt, deadline);
    throw error;
  }
}

const insert: CommandHandler = async (context) => {
  const name = collectionNameArgument(context.body, 'insert');
  const documents = statementList(context.body, 'documents', 'insert');
  const ordered = context.body.ordered !== false;
  const journal = await context.beginWrite();
  const deadline = deadlineOf(context.body);
  const target = lazyCollection(context, name);
  const writeErrors: Document[] = [];
  let inserted = 0;
  for (let index = 0; index < documents.length; index += 1) {
    try {
      const document = assertDocumentSize(prepareForInsert(documents[index]), 'insert');
      const stored = runStatement(() => {
        const collection = target.create();
        if (!journal) collection.assertNotBlocked(Collection.documentKey(document), document);
        collection.insert(document, journal);
      }, deadline);
      if (stored instanceof Promise) await stored;
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

/**
 * Runs one update statement (`{q, u, upsert, multi, arrayFilters}`) against a collection. Outside a
 * transaction (no journal) every document it would write is checked for an open transaction's
 * claim before the first change, so a statement that must wait has changed nothing yet.
 */
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
  assertSimpleCollation(statement.collation);
  assertHintExists(target.existing(), statement.hint);
  const targets = findMatchingDocuments(target.existing(), filter, { limit: multi ? undefined : 1, variables, hint: statement.hint });
  if (targets.length === 0) {
    if (statement.upsert !== true) return { matched: 0, modified: 0 };
    const document = assertDocumentSize(buildUpsertDocument(filter, update, arrayFilters, variables), 'upsert');
    const collection = target.create();
    if (!journal) collection.assertNotBlocked(Collection.documentKey(document), document);
    collection.insert(document, journal);
    return { matched: 0, modified: 0, upsertedId: document._id };
  }
  const collection = target.create();
  const changes: Array<[string, Document]> = [];
  for (const current of targets) {
    const outcome = applyUpdate(current, update, { filter, arrayFilters, isInsert: false, variables });
    const documentKey = Collection.documentKey(current);
    if (!journal) collection.assertNotBlocked(documentKey, outcome.changed ? outcome.document : undefined);
    if (outcome.changed) changes.push([documentKey, assertDocumentSize(outcome.document, 'update')]);
  }
  for (const [documentKey, next] of changes) collection.replace(documentKey, next, journal);
  return { matched: targets.length, modified: changes.length };
}

const update: CommandHandler = async (context) => {
  const name = collectionNameArgument(context.body, 'update');
  const statements = statementList(context.body, 'updates', 'update');
  const ordered = context.body.ordered !== false;
  const journal = await context.beginWrite();
  const deadline = deadlineOf(context.body);
  const target = lazyCollection(context, name);
  const variables = letVariables(context.body);
  const writeErrors: Document[] = [];
  const upserted: Document[] = [];
  let matched = 0;
  let modified = 0;
  for (let index = 0; index < statements.length; index += 1) {
    try {
      const attempt = runStatement(() => runUpdateStatement(target, statements[index], journal, variables), deadline);
      const result = attempt instanceof Promise ? await attempt : attempt;
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
  const deadline = deadlineOf(context.body);
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
      const attempt = runStatement(() => {
        const collection = context.engine.storage.getCollection(context.database, name);
        assertHintExists(collection, statement.hint);
        // Matched even when the collection is missing, so a malformed filter is still refused.
        const matches = findMatchingDocuments(collection, filter, { limit: limit === 1 ? 1 : undefined, variables, hint: statement.hint });
        if (!collection) return 0;
        const keys = matches.map((document) => Collection.documentKey(document));
        if (!journal) for (const documentKey of keys) collection.assertNotBlocked(documentKey);
        for (const documentKey of keys) collection.delete(documentKey, journal);
        return keys.length;
      }, deadline);
      deleted += attempt instanceof Promise ? await attempt : attempt;
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
