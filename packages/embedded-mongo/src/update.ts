import { ObjectId, Timestamp, type Document } from 'bson';
import { isEqual as mingoEquals } from 'mingo/util';
import { update as mingoUpdate } from 'mingo/updater';
import { bsonTypeName, cloneValue, compareValues, formatValue, isNumeric, isPlainObject, valueKey } from './bson-values';
import { getPath, pathsOverlap, setPath, withIdFirst } from './document-paths';
import { CommandError, ErrorCode, unsupportedFeature } from './errors';
import { ENGINE_QUERY_OPTIONS, engineAggregator, engineQuery } from './mingo-context';
import { applyArithmetic, plainNumbers, restoreNumericTypes } from './numeric-types';

/**
 * MongoDB update semantics on top of mingo's updater. mingo applies the operators; this module
 * adds what it lacks or does leniently: `$setOnInsert`, `$currentDate` with timestamps, positional
 * `$` when the filter uses `$and`, MongoDB's parse/type errors, `_id` immutability, replacement
 * and pipeline updates, and seeding upserted documents from the filter.
 */

const UPDATE_OPERATORS = new Set([
  '$set', '$unset', '$inc', '$mul', '$min', '$max', '$rename', '$currentDate',
  '$push', '$addToSet', '$pull', '$pullAll', '$pop', '$bit', '$setOnInsert',
]);

const PIPELINE_UPDATE_STAGES = new Set(['$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith']);

export type UpdateSpec = Document | Document[];

export interface UpdateContext {
  /** The statement's filter, for the positional `$` operator. */
  filter: Document;
  arrayFilters?: Document[];
  /** True while building the document of an upsert (enables `$setOnInsert`). */
  isInsert: boolean;
  /** The command's `let` variables, for pipeline updates. */
  variables?: Document;
}

export interface UpdateOutcome {
  document: Document;
  changed: boolean;
}

export function isOperatorUpdate(update: UpdateSpec): boolean {
  if (Array.isArray(update)) return false;
  const keys = Object.keys(update);
  return keys.length > 0 && keys[0].startsWith('$');
}

/** Applies any update form (operators, replacement, pipeline) to a copy of `current`. */
export function applyUpdate(current: Document, update: UpdateSpec, context: UpdateContext): UpdateOutcome {
  if (Array.isArray(update)) return applyPipelineUpdate(current, update, context.variables);
  if (!isPlainObject(update)) throw new CommandError(ErrorCode.FailedToParse, 'Update argument must be either an object or an array');
  if (isOperatorUpdate(update)) return applyOperators(current, update as Document, context);
  return applyReplacement(current, update);
}

function applyReplacement(current: Document, replacement: Document): UpdateOutcome {
  for (const key of Object.keys(replacement)) {
    if (key.startsWith('$')) {
      throw new CommandError(ErrorCode.BadValue, `The dollar ($) prefixed field '${key}' in '${key}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`);
    }
  }
  if ('_id' in replacement && '_id' in current && valueKey(replacement._id) !== valueKey(current._id)) {
    throw new CommandError(ErrorCode.ImmutableField, `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(replacement._id)}`);
  }
  const document = withIdFirst({ ...('_id' in current ? { _id: current._id } : {}), ...cloneValue(replacement) });
  return { document, changed: valueKey(document) !== valueKey(current) };
}

function applyPipelineUpdate(current: Document, pipeline: Document[], variables?: Document): UpdateOutcome {
  for (const stage of pipeline) {
    const name = isPlainObject(stage) ? Object.keys(stage)[0] : undefined;
    if (!name || !PIPELINE_UPDATE_STAGES.has(name)) {
      throw new CommandError(ErrorCode.InvalidOptions, `${String(name)} is not allowed to be used within an update`);
    }
  }
  // The pipeline computes with plain numbers; the fields it leaves as they were keep their types.
  const [computed] = engineAggregator(pipeline, variables ? { variables } : {}).run([cloneValue(plainNumbers(current))]) as Document[];
  const result = computed === undefined ? computed : (restoreNumericTypes(computed, current) as Document);
  // A pipeline that drops _id (e.g. $replaceRoot to a subdocument) keeps the stored one, as MongoDB does.
  const document = withIdFirst(result && !('_id' in result) && '_id' in current ? { _id: current._id, ...result } : (result ?? {}));
  if ('_id' in current && valueKey(document._id) !== valueKey(current._id)) {
    throw new CommandError(ErrorCode.ImmutableField, "Performing an update on the path '_id' would modify the immutable field '_id'");
  }
  return { document, changed: valueKey(document) !== valueKey(current) };
}

function applyOperators(current: Document, update: Document, context: UpdateContext): UpdateOutcome {
  const modifier = normalizeModifier(update, context.isInsert);
  // Checked on the update as sent: $setOnInsert and $currentDate conflict even though they are rewritten.
  assertNoConflictingPaths(update);
  assertApplicable(current, modifier);
  dropUnchangedId(current, modifier);
  pullWithLogicalConditions(current, modifier);
  const document = cloneValue(current);
  const positional = usesPositionalOperator(modifier);
  // The element `$` stands for is found once, on the document before the update (as MongoDB
  // does), so every path through it names the same element even when the update changes the
  // field the filter matched on. On an upsert's new document mingo reports the missing match.
  const resolved = positional && !context.isInsert ? resolvePositionalPaths(current, modifier, context.filter) : modifier;
  // mingo also treats the condition as a precondition, so pass it only when `$` is left to it.
  const condition = positional && context.isInsert ? positionalCondition(context.filter) : undefined;
  foldTypedOperators(document, resolved, current._id);
  const modified: string[] = [];
  const forced = forceDifferentValues(document, resolved);
  // mingo copies values with plain assignment, which loses a field named `__proto__`: such an
  // update is copied here (safely) and handed over as is.
  const safe = holdsProtoKey(resolved);
  const operators = safe ? cloneValue(resolved) : resolved;
  try {
    // mingo refuses two paths under one root (`a.$[].x` and `a.$[].y`) that MongoDB allows; the
    // MongoDB conflicts were refused above, so such paths are applied in separate passes.
    for (const batch of batchesByRoot(operators)) {
      modified.push(...mingoUpdate(document, batch, context.arrayFilters, condition, { cloneMode: safe ? 'none' : 'copy', queryOptions: ENGINE_QUERY_OPTIONS }));
    }
  } catch (error) {
    if (error instanceof Error && error.message.includes("immutable field '_id'")) {
      throw new CommandError(ErrorCode.ImmutableField, "Performing an update on the path '_id' would modify the immutable field '_id'");
    }
    throw error;
  }
  if ('_id' in current && valueKey(document._id) !== valueKey(current._id)) {
    throw new CommandError(ErrorCode.ImmutableField, "Performing an update on the path '_id' would modify the immutable field '_id'");
  }
  return { document: withIdFirst(document), changed: modified.length > 0 || forced };
}

/**
 * `$inc`, `$mul`, `$min` and `$max` on plain paths are computed here with MongoDB's numeric types
 * (numeric-types.ts) and the engine's value order, and handed to mingo as `$set`; mingo computes
 * with JavaScript numbers only. Paths through `$[]`/`$[e]` stay with mingo.
 */
function foldTypedOperators(document: Document, modifier: Document, id: unknown): void {
  const assigned: Document = {};
  for (const operator of ['$inc', '$mul', '$min', '$max'] as const) {
    const fields = modifier[operator] as Document | undefined;
    if (!fields) continue;
    for (const [path, operand] of Object.entries(fields)) {
      if (path.includes('$')) {
        // mingo computes these with JavaScript numbers and skips any other value silently.
        const arrayRoot = getPath(document, path.slice(0, path.indexOf('$')).replace(/\.$/, ''));
        if ((isNumeric(operand) && typeof operand !== 'number') || plainNumbers(arrayRoot) !== arrayRoot) {
          throw unsupportedFeature(`${operator} through an array filter or $[] on int64, Decimal128 or integral double values`);
        }
        continue;
      }
      delete fields[path];
      const existing = getPath(document, path);
      if (operator === '$inc' || operator === '$mul') {
        assigned[path] = applyArithmetic(operator, existing, operand, () => `{_id: ${formatValue(id)}}`);
      } else if (existing === undefined || compareValues(operand, existing) * (operator === '$min' ? -1 : 1) > 0) {
        assigned[path] = operand;
      }
    }
    if (Object.keys(fields).length === 0) delete modifier[operator];
  }
  if (Object.keys(assigned).length > 0) modifier.$set = { ...(modifier.$set ?? {}), ...assigned };
}

/**
 * mingo's `$set` skips a value it deems equal to the current one, and it deems BinData equal by
 * bytes alone: a change of subtype only would be lost. Such a path is cleared first, so the new
 * value is written; returns whether any was.
 */
function forceDifferentValues(document: Document, modifier: Document): boolean {
  const set = modifier.$set as Document | undefined;
  if (!set) return false;
  let forced = false;
  for (const [path, value] of Object.entries(set)) {
    if (path.includes('$')) continue;
    const current = getPath(document, path);
    if (current === undefined || !mingoEquals(current, value) || valueKey(current) === valueKey(value)) continue;
    setPath(document, path, null);
    forced = true;
  }
  return forced;
}

function holdsProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsProtoKey);
  if (!isPlainObject(value)) return false;
  return Object.keys(value).some((key) => key === '__proto__' || holdsProtoKey(value[key]));
}

/** Validates operator names and arguments and rewrites the operators mingo lacks into ones it has. */
function normalizeModifier(update: Document, isInsert: boolean): Document {
  const modifier: Document = {};
  const merge = (operator: string, fields: Document) => {
    modifier[operator] = { ...(modifier[operator] ?? {}), ...fields };
  };
  for (const [operator, fields] of Object.entries(update)) {
    if (!UPDATE_OPERATORS.has(operator)) {
      throw new CommandError(ErrorCode.FailedToParse, `Unknown modifier: ${operator}. Expected a valid update modifier or pipeline-style update specified as an array`);
    }
    if (!isPlainObject(fields)) {
      throw new CommandError(ErrorCode.FailedToParse, `Modifiers operate on fields but we found type ${bsonTypeName(fields)} instead. For example: {$mod: {<field>: ...}} not {${operator}: ${formatValue(fields)}}`);
    }
    if (Object.keys(fields).length === 0) continue;
    for (const path of Object.keys(fields)) {
      if (path === '' || path.split('.').some((segment) => segment === '')) {
        throw new CommandError(56, `An empty update path is not valid.`);
      }
    }
    if (operator === '$setOnInsert') {
      if (isInsert) merge('$set', fields);
      continue;
    }
    if (operator === '$currentDate') {
      const values: Document = {};
      for (const [path, spec] of Object.entries(fields)) {
        const asTimestamp = isPlainObject(spec) && spec.$type === 'timestamp';
        values[path] = asTimestamp ? Timestamp.fromBits(1, Math.floor(Date.now() / 1000)) : new Date();
      }
      merge('$set', values);
      continue;
    }
    if (operator === '$inc' || operator === '$mul') {
      for (const [path, amount] of Object.entries(fields)) {
        if (!isNumeric(amount)) {
          const verb = operator === '$inc' ? 'increment' : 'multiply';
          throw new CommandError(ErrorCode.TypeMismatch, `Cannot ${verb} with non-numeric argument: {${path}: ${formatValue(amount)}}`);
        }
      }
    }
    if (operator === '$rename') {
      for (const [from, to] of Object.entries(fields)) {
        if (typeof to !== 'string') throw new CommandError(ErrorCode.BadValue, `The 'to' field for $rename must be a string: ${from}: ${formatValue(to)}`);
        if (pathsOverlap(from, to)) throw new CommandError(ErrorCode.BadValue, `The source and target field for $rename must differ: ${from}: ${JSON.stringify(to)}`);
      }
    }
    merge(operator, fields);
  }
  return modifier;
}

function assertNoConflictingPaths(modifier: Document): void {
  const paths: string[] = [];
  for (const [operator, fields] of Object.entries(modifier)) {
    for (const [path, value] of Object.entries(fields as Document)) {
      paths.push(path);
      if (operator === '$rename') paths.push(value as string);
    }
  }
  for (let i = 0; i < paths.length; i += 1) {
    for (let j = i + 1; j < paths.length; j += 1) {
      if (pathsOverlap(paths[i], paths[j])) {
        const [shorter, longer] = paths[i].length <= paths[j].length ? [paths[i], paths[j]] : [paths[j], paths[i]];
        throw new CommandError(ErrorCode.ConflictingUpdateOperators, `Updating the path '${longer}' would create a conflict at '${shorter}'`);
      }
    }
  }
}

/** MongoDB's type errors, which mingo would silently ignore. Positional paths are left to mingo. */
function assertApplicable(current: Document, modifier: Document): void {
  for (const [operator, fields] of Object.entries(modifier)) {
    for (const path of Object.keys(fields as Document)) {
      if (path.includes('$')) continue;
      if (operator !== '$unset' && operator !== '$pull' && operator !== '$pullAll' && operator !== '$pop') assertPathViable(current, path);
      const existing = getPath(current, path);
      if (existing === undefined) continue;
      if ((operator === '$inc' || operator === '$mul') && !isNumeric(existing)) {
        throw new CommandError(ErrorCode.TypeMismatch, `Cannot apply ${operator} to a value of non-numeric type. {_id: ${formatValue(current._id)}} has the field '${lastSegment(path)}' of non-numeric type ${bsonTypeName(existing)}`);
      }
      if ((operator === '$push' || operator === '$addToSet') && !Array.isArray(existing)) {
        throw new CommandError(ErrorCode.BadValue, `The field '${path}' must be an array but is of type ${bsonTypeName(existing)} in document {_id: ${formatValue(current._id)}}`);
      }
      if ((operator === '$pull' || operator === '$pullAll' || operator === '$pop') && !Array.isArray(existing)) {
        throw new CommandError(ErrorCode.BadValue, `Cannot apply ${operator} to a non-array value`);
      }
    }
  }
}

function assertPathViable(current: Document, path: string): void {
  const segments = path.split('.');
  let value: unknown = current;
  for (let i = 0; i < segments.length - 1; i += 1) {
    const next = Array.isArray(value) && /^\d+$/.test(segments[i]) ? value[Number(segments[i])] : isPlainObject(value) ? value[segments[i]] : undefined;
    if (next === undefined) return;
    // A field name (not an index or a positional operator) cannot be created inside an array.
    const through = Array.isArray(next) && !/^(\d+|\$.*)$/.test(segments[i + 1]);
    if (through || (!isPlainObject(next) && !Array.isArray(next))) {
      throw new CommandError(ErrorCode.PathNotViable, `Cannot create field '${segments[i + 1]}' in element {${segments[i]}: ${formatValue(next)}}`);
    }
    value = next;
  }
}

/** MongoDB accepts `_id` in `$set` at its current value (a no-op) and refuses any other value. */
function dropUnchangedId(current: Document, modifier: Document): void {
  const set = modifier.$set as Document | undefined;
  if (!set || !('_id' in set) || !('_id' in current)) return;
  if (valueKey(set._id) !== valueKey(current._id)) {
    throw new CommandError(ErrorCode.ImmutableField, "Performing an update on the path '_id' would modify the immutable field '_id'");
  }
  const { _id: _unchanged, ...rest } = set;
  if (Object.keys(rest).length > 0) modifier.$set = rest;
  else delete modifier.$set;
}

/**
 * `$pull` whose condition uses `$or`/`$and`/`$nor` (mingo matches nothing for them): the elements
 * are filtered here and the result is set, for paths without positional operators.
 */
function pullWithLogicalConditions(current: Document, modifier: Document): void {
  const pull = modifier.$pull as Document | undefined;
  if (!pull) return;
  for (const [path, condition] of Object.entries(pull)) {
    if (path.includes('$') || !isPlainObject(condition)) continue;
    if (!Object.keys(condition).some((key) => key === '$or' || key === '$and' || key === '$nor')) continue;
    const query = engineQuery(condition);
    const existing = getPath(current, path);
    delete pull[path];
    if (Array.isArray(existing)) {
      const kept = existing.filter((element) => !(isPlainObject(element) && query.test(element)));
      if (kept.length !== existing.length) modifier.$set = { ...(modifier.$set ?? {}), [path]: kept };
    }
  }
  if (Object.keys(pull).length === 0) delete modifier.$pull;
}

/** Splits a modifier so that no two paths in one batch share their first field. */
function batchesByRoot(modifier: Document): Document[] {
  const batches: Array<{ roots: Set<string>; modifier: Document }> = [];
  for (const [operator, fields] of Object.entries(modifier)) {
    for (const [path, value] of Object.entries(fields as Document)) {
      const roots = [path.split('.')[0]];
      if (operator === '$rename') roots.push(String(value).split('.')[0]);
      let batch = batches.find((candidate) => roots.every((root) => !candidate.roots.has(root)));
      if (!batch) {
        batch = { roots: new Set(), modifier: {} };
        batches.push(batch);
      }
      for (const root of roots) batch.roots.add(root);
      batch.modifier[operator] = { ...(batch.modifier[operator] ?? {}), [path]: value };
    }
  }
  return batches.map((batch) => batch.modifier);
}

function usesPositionalOperator(modifier: Document): boolean {
  return Object.values(modifier).some((fields) => Object.keys(fields as Document).some((path) => /(^|\.)\$(\.|$)/.test(path)));
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('.') + 1);
}

const POSITIONAL_NOT_FOUND = 'The positional operator did not find the match needed from the query.';

/** Rewrites each `$` segment to the index of the array element the filter matched in `current`. */
function resolvePositionalPaths(current: Document, modifier: Document, filter: Document): Document {
  const indexByArray = new Map<string, number>();
  const resolved: Document = {};
  for (const [operator, fields] of Object.entries(modifier)) {
    const paths: Document = {};
    for (const [path, value] of Object.entries(fields as Document)) {
      const segments = path.split('.');
      const at = segments.indexOf('$');
      if (at >= 0) {
        const arrayPath = segments.slice(0, at).join('.');
        let index = indexByArray.get(arrayPath);
        if (index === undefined) indexByArray.set(arrayPath, (index = matchedElementIndex(current, arrayPath, filter)));
        segments[at] = String(index);
      }
      paths[segments.join('.')] = value;
    }
    resolved[operator] = paths;
  }
  return resolved;
}

/** The first element of the array at `arrayPath` that satisfies every filter condition on that array. */
function matchedElementIndex(current: Document, arrayPath: string, filter: Document): number {
  const array = getPath(current, arrayPath);
  const conditions = Object.entries(positionalCondition(filter)).filter(([key]) => key === arrayPath || key.startsWith(`${arrayPath}.`));
  if (!Array.isArray(array) || conditions.length === 0) throw new CommandError(ErrorCode.BadValue, POSITIONAL_NOT_FOUND);
  const tests = conditions.map(([key, condition]) => elementTest(key === arrayPath ? '' : key.slice(arrayPath.length + 1), condition));
  const index = array.findIndex((element) => tests.every((test) => test(element)));
  if (index < 0) throw new CommandError(ErrorCode.BadValue, POSITIONAL_NOT_FOUND);
  return index;
}

/** Whether one array element satisfies a filter condition on the array (`subPath` ''), or on a field inside its elements. */
function elementTest(subPath: string, condition: unknown): (element: unknown) => boolean {
  if (subPath !== '') {
    const query = engineQuery({ [subPath]: condition });
    return (element) => isPlainObject(element) && query.test(element);
  }
  const elemMatch = isPlainObject(condition) ? condition.$elemMatch : undefined;
  if (isPlainObject(elemMatch) && !Object.keys(elemMatch).some((key) => key.startsWith('$') && key !== '$and' && key !== '$or' && key !== '$nor')) {
    const query = engineQuery(elemMatch);
    return (element) => isPlainObject(element) && query.test(element);
  }
  const query = engineQuery({ value: isPlainObject(elemMatch) ? elemMatch : condition });
  return (element) => query.test({ value: element });
}

/** mingo finds the positional `$` element from a flat condition; merge top-level `$and` clauses into one. */
function positionalCondition(filter: Document): Document {
  if (!Array.isArray(filter.$and)) return filter;
  const flat: Document = {};
  for (const [key, value] of Object.entries(filter)) if (key !== '$and') flat[key] = value;
  for (const clause of filter.$and as unknown[]) {
    if (!isPlainObject(clause)) continue;
    for (const [key, value] of Object.entries(positionalCondition(clause))) if (!(key in flat)) flat[key] = value;
  }
  return flat;
}

/**
 * The document an upsert starts from: the filter's equality conditions (`{a: 1}`, `{a: {$eq: 1}}`,
 * also inside `$and`), with `_id` first.
 */
export function upsertSeed(filter: Document): Document {
  const seed: Document = {};
  const collect = (clause: Document) => {
    for (const [path, condition] of Object.entries(clause)) {
      if (path === '$and' && Array.isArray(condition)) {
        for (const inner of condition) if (isPlainObject(inner)) collect(inner);
        continue;
      }
      if (path.startsWith('$')) continue;
      const isOperators = isPlainObject(condition) && Object.keys(condition).some((key) => key.startsWith('$'));
      if (!isOperators) setPath(seed, path, cloneValue(condition));
      else if ('$eq' in condition) setPath(seed, path, cloneValue(condition.$eq));
    }
  };
  collect(filter);
  return withIdFirst(seed);
}

/** Builds the document an upsert inserts, with a generated `_id` when neither filter nor update gives one. */
export function buildUpsertDocument(filter: Document, update: UpdateSpec, arrayFilters: Document[] | undefined, variables?: Document): Document {
  const seed = upsertSeed(filter);
  let document: Document;
  if (Array.isArray(update)) document = applyPipelineUpdate(seed, update, variables).document;
  else if (isOperatorUpdate(update)) document = applyOperators(seed, update as Document, { filter, arrayFilters, isInsert: true }).document;
  else {
    if ('_id' in update && '_id' in seed && valueKey(update._id) !== valueKey(seed._id)) {
      throw new CommandError(ErrorCode.ImmutableField, `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(update._id)}`);
    }
    document = applyReplacement(seed, update).document;
  }
  if (!('_id' in document)) document = { _id: new ObjectId(), ...document };
  return withIdFirst(document);
}

