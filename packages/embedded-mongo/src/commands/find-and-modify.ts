import type { Document } from 'bson';
import { isPlainObject } from '../bson-values';
import { Collection } from '../collection';
import type { CommandHandler } from '../command-context';
import { CommandError, ErrorCode } from '../errors';
import { compileProjection } from '../projection';
import { findMatchingDocuments } from '../query-execution';
import { applyUpdate, buildUpsertDocument, type UpdateSpec } from '../update';
import { assertHintExists, collectionNameArgument, documentArgument, letVariables } from './arguments';
import { deadlineOf, retryWhenBlocked } from '../write-waits';
import { assertDocumentSize } from './write-commands';

function validate(body: Document): void {
  const remove = body.remove === true;
  const hasUpdate = body.update !== undefined && body.update !== null;
  if (remove && hasUpdate) throw new CommandError(ErrorCode.FailedToParse, 'Cannot specify both an update and remove=true');
  if (!remove && !hasUpdate) throw new CommandError(ErrorCode.FailedToParse, 'Either an update or remove=true must be specified');
  if (remove && body.upsert === true) throw new CommandError(ErrorCode.FailedToParse, 'Cannot specify both upsert=true and remove=true ');
  if (remove && body.new === true) {
    throw new CommandError(ErrorCode.FailedToParse, "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document");
  }
  if (hasUpdate && !Array.isArray(body.update) && !isPlainObject(body.update)) {
    throw new CommandError(ErrorCode.FailedToParse, 'Update argument must be either an object or an array');
  }
}

/**
 * `findAndModify`: one document, chosen by query and sort, removed or updated (or upserted),
 * answered with `{lastErrorObject, value}`. Errors, duplicate keys included, are top-level
 * `ok: 0` replies, unlike the `writeErrors` of `update`.
 */
const findAndModify: CommandHandler = async (context) => {
  const { body, engine, database } = context;
  const name = collectionNameArgument(body, 'findAndModify' in body ? 'findAndModify' : 'findandmodify');
  validate(body);
  const filter = documentArgument(body, 'query', 'findAndModify') ?? {};
  const sort = documentArgument(body, 'sort', 'findAndModify');
  const project = compileProjection(documentArgument(body, 'fields', 'findAndModify'), filter);
  const shape = (document: Document | undefined) => (document === undefined ? null : project ? project(document) : document);
  const journal = await context.beginWrite();
  const variables = letVariables(body);
  const update = body.update as UpdateSpec;
  const arrayFilters = Array.isArray(body.arrayFilters) ? (body.arrayFilters as Document[]) : undefined;
  const returnNew = body.new === true;

  // Outside a transaction, a document an open transaction has written makes this wait
  // (BlockedByTransaction, thrown before any change) and then run again.
  const attempt = (): Document => {
    const existing = engine.storage.getCollection(database, name);
    assertHintExists(existing, body.hint);
    const [current] = findMatchingDocuments(existing, filter, { sort, limit: 1, variables, hint: body.hint });

    if (body.remove === true) {
      if (!current || !existing) return { lastErrorObject: { n: 0 }, value: null, ok: 1 };
      const documentKey = Collection.documentKey(current);
      if (!journal) existing.assertNotBlocked(documentKey);
      existing.delete(documentKey, journal);
      return { lastErrorObject: { n: 1 }, value: shape(current), ok: 1 };
    }

    if (current && existing) {
      const outcome = applyUpdate(current, update, { filter, arrayFilters, isInsert: false, variables });
      const documentKey = Collection.documentKey(current);
      if (!journal) existing.assertNotBlocked(documentKey, outcome.changed ? outcome.document : undefined);
      if (outcome.changed) existing.replace(documentKey, assertDocumentSize(outcome.document, 'update'), journal);
      return {
        lastErrorObject: { n: 1, updatedExisting: true },
        value: shape(returnNew ? outcome.document : current),
        ok: 1,
      };
    }
    if (body.upsert !== true) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
    const document = assertDocumentSize(buildUpsertDocument(filter, update, arrayFilters, variables), 'upsert');
    const collection = engine.storage.ensureCollection(database, name);
    if (!journal) collection.assertNotBlocked(Collection.documentKey(document), document);
    collection.insert(document, journal);
    return {
      lastErrorObject: { n: 1, updatedExisting: false, upserted: document._id },
      value: returnNew ? shape(document) : null,
      ok: 1,
    };
  };
  return retryWhenBlocked(attempt, deadlineOf(body));
};

export const findAndModifyCommands: Record<string, CommandHandler> = { findAndModify, findandmodify: findAndModify };
