import { ObjectId, type Document } from 'bson';
import { isPlainObject } from '../bson-values';
import { Collection, type WriteJournal } from '../collection';
import type { CommandContext, CommandHandler } from '../command-context';
import { withIdFirst } from '../document-paths';
import { CommandError, ErrorCode, failsWholeCommand, writeErrorEntry } from '../errors';
import { findMatchingDocuments } from '../query-execution';
import { applyUpdate, buildUpsertDocument, type UpdateSpec } from '../update';
import { arrayArgument, collectionNameArgument } from './arguments';

/** Gives a document its `_id` (first, as MongoDB stores it) and rejects ids MongoDB rejects. */
export function prepareForInsert(raw: unknown): Document {
  if (!isPlainObject(raw)) throw new CommandError(ErrorCode.TypeMismatch, 'Document to insert must be an object');
  if (Array.isArray(raw._id)) throw new CommandError(53, `The '_id' value cannot be of type array`);
  if (raw._id instanceof RegExp) throw new CommandError(53, `The '_id' value cannot be of type regex`);
  return '_id' in raw && raw._id !== undefined ? withIdFirst(raw) : { _id: new ObjectId(), ...raw };
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
      collection.insert(prepareForInsert(documents[index]), journal);
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
export function runUpdateStatement(target: LazyCollection, statement: Document, journal: WriteJournal | undefined): UpdateStatementResult {
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
  const sort = isPlainObject(statement.sort) ? statement.sort : undefined;
  const targets = findMatchingDocuments(target.existing(), filter, { limit: multi ? undefined : 1, sort });
  if (targets.length === 0) {
    if (statement.upsert !== true) return { matched: 0, modified: 0 };
    const document = buildUpsertDocument(filter, update, arrayFilters);
    target.create().insert(document, journal);
    return { matched: 0, modified: 0, upsertedId: document._id };
  }
  const collection = target.create();
  let modified = 0;
  for (const current of targets) {
    const outcome = applyUpdate(current, update, { filter, arrayFilters, isInsert: false });
    if (!outcome.changed) continue;
    collection.replace(Collection.documentKey(current), outcome.document, journal);
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
  const writeErrors: Document[] = [];
  const upserted: Document[] = [];
  let matched = 0;
  let modified = 0;
  for (let index = 0; index < statements.length; index += 1) {
    try {
      const result = runUpdateStatement(target, statements[index], journal);
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
  const writeErrors: Document[] = [];
  let deleted = 0;
  for (let index = 0; index < statements.length; index += 1) {
    try {
      const statement = statements[index];
      const limit = Number(statement.limit ?? 0);
      if (limit !== 0 && limit !== 1) throw new CommandError(ErrorCode.FailedToParse, `The limit field in delete objects must be 0 or 1. Got ${limit}`);
      const filter = isPlainObject(statement.q) ? statement.q : {};
      if (!collection) continue;
      for (const document of findMatchingDocuments(collection, filter, { limit: limit === 1 ? 1 : undefined })) {
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
