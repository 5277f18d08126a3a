import { ObjectId, type Collection, type Document } from 'mongodb';
import { openTestDatabase, type TestDatabase } from './test-database';

describe('embedded engine: findAndModify', () => {
  let database: TestDatabase;
  let tasks: Collection;

  beforeAll(async () => {
    database = await openTestDatabase('fam');
    tasks = database.db.collection('tasks');
    await tasks.createIndex({ code: 1 }, { unique: true });
  });

  beforeEach(async () => {
    await tasks.deleteMany({});
    await tasks.insertMany([
      { code: 'a', priority: 2, state: 'open' },
      { code: 'b', priority: 9, state: 'open' },
      { code: 'c', priority: 5, state: 'open' },
    ]);
  });

  afterAll(async () => {
    await database.close();
  });

  it('returns the document before the update by default and after it with returnDocument "after"', async () => {
    const before = await tasks.findOneAndUpdate({ code: 'a' }, { $set: { state: 'done' } });
    expect(before).toMatchObject({ code: 'a', state: 'open' });
    const after = await tasks.findOneAndUpdate({ code: 'b' }, { $set: { state: 'done' } }, { returnDocument: 'after' });
    expect(after).toMatchObject({ code: 'b', state: 'done' });
  });

  it('picks the first document in sort order and projects the returned fields', async () => {
    const claimed = await tasks.findOneAndUpdate(
      { state: 'open' },
      { $set: { state: 'claimed' } },
      { sort: { priority: -1 }, projection: { _id: 0, code: 1, state: 1 }, returnDocument: 'after' },
    );
    expect(claimed).toEqual({ code: 'b', state: 'claimed' });
  });

  it('answers the raw command with lastErrorObject and value', async () => {
    const reply = await database.db.command({ findAndModify: 'tasks', query: { code: 'c' }, update: { $inc: { priority: 1 } }, new: true });
    expect(reply.ok).toBe(1);
    expect(reply.lastErrorObject).toEqual({ n: 1, updatedExisting: true });
    expect(reply.value).toMatchObject({ code: 'c', priority: 6 });
    const missing = await database.db.command({ findAndModify: 'tasks', query: { code: 'zzz' }, update: { $inc: { priority: 1 } } });
    expect(missing.lastErrorObject).toEqual({ n: 0, updatedExisting: false });
    expect(missing.value).toBeNull();
  });

  it('upserts, reporting the new _id in lastErrorObject', async () => {
    const reply = await database.db.command({
      findAndModify: 'tasks',
      query: { code: 'new' },
      update: { $set: { priority: 1 }, $setOnInsert: { state: 'fresh' } },
      upsert: true,
      new: true,
    });
    expect(reply.lastErrorObject.updatedExisting).toBe(false);
    expect(reply.lastErrorObject.upserted).toBeInstanceOf(ObjectId);
    expect(reply.value).toEqual({ _id: reply.lastErrorObject.upserted, code: 'new', priority: 1, state: 'fresh' });
    const withoutNew = await database.db.command({ findAndModify: 'tasks', query: { code: 'newer' }, update: { $set: { priority: 1 } }, upsert: true });
    expect(withoutNew.value).toBeNull();
    expect(await tasks.countDocuments({ code: 'newer' })).toBe(1);
  });

  it('replaces the document with a replacement update', async () => {
    const replaced = await tasks.findOneAndReplace({ code: 'a' }, { code: 'a', replaced: true }, { returnDocument: 'after' });
    expect(replaced).toEqual({ _id: expect.any(ObjectId), code: 'a', replaced: true });
  });

  it('removes the matched document and returns it', async () => {
    const removed = await tasks.findOneAndDelete({ state: 'open' }, { sort: { priority: 1 } });
    expect(removed).toMatchObject({ code: 'a' });
    expect(await tasks.countDocuments()).toBe(2);
  });

  it('fails as a whole command with code 11000, keyPattern and keyValue on a duplicate key', async () => {
    const error = await tasks.findOneAndUpdate({ code: 'a' }, { $set: { code: 'b' } }).catch((caught: unknown) => caught as Document);
    expect(error).toMatchObject({ code: 11000, codeName: 'DuplicateKey', keyPattern: { code: 1 }, keyValue: { code: 'b' } });
    expect(String(error?.message)).toMatch(/E11000 duplicate key error collection: \S+\.tasks index: code_1 dup key: \{ code: "b" \}/);
    expect(await tasks.findOne({ code: 'a' })).not.toBeNull();
  });

  it('rejects contradictory options', async () => {
    await expect(database.db.command({ findAndModify: 'tasks', query: {}, remove: true, update: { $set: { x: 1 } } })).rejects.toMatchObject({ code: 9 });
    await expect(database.db.command({ findAndModify: 'tasks', query: {} })).rejects.toMatchObject({ code: 9 });
  });
});
