import { BSON, MongoBulkWriteError, MongoServerError, UUID, type Collection, type Db } from 'mongodb';
import { isEmbeddedEngine, openTestDatabase, type TestDatabase } from './test-database';
import { RawWireClient } from './raw-wire-client';

const LIMIT = 16 * 1024 * 1024;
const MIB = 1024 * 1024;

/** The error MongoDB answers for a document over 16 MiB, by the path that wrote it. */
const MESSAGES = {
  insert: /^object to insert too large\. size in bytes: \d+, max size: 16777216$/,
  upsert: /Document to upsert is larger than 16777216$/,
  update: /Resulting document after update is larger than 16777216$/,
};
/** The code a real server answers varies by version and path (BadValue, 17419, 17420); the engine always answers 10334. */
const SERVER_CODES = [2, 10334, 17419, 17420];

describe('embedded engine: the 16 MiB document limit', () => {
  let database: TestDatabase;
  let db: Db;
  let embedded: boolean;
  let items: Collection;

  beforeAll(async () => {
    database = await openTestDatabase('docsize');
    db = database.db;
    embedded = await isEmbeddedEngine(db);
  });
  afterAll(() => database.close());
  beforeEach(async () => {
    items = db.collection(`items_${new UUID().toHexString().slice(0, 8)}`);
  });

  const expectTooLarge = (error: unknown, path: keyof typeof MESSAGES) => {
    const entry = error as { code?: number; codeName?: string; errmsg?: string; message?: string };
    expect(SERVER_CODES).toContain(entry.code);
    expect(entry.errmsg ?? entry.message).toMatch(MESSAGES[path]);
    if (embedded) expect(entry).toMatchObject({ code: 10334 });
  };

  it('stores a document of exactly 16 MiB, and refuses an update that grows it by one byte', async () => {
    const _id = 'exact';
    const idOverhead = BSON.calculateObjectSize({ _id, x: '' });
    await items.insertOne({ _id: _id as never, x: 'a'.repeat(LIMIT - idOverhead) });
    const stored = await items.findOne({ _id: _id as never });
    expect(stored?.x).toHaveLength(LIMIT - idOverhead);
    const error = await items.updateOne({ _id: _id as never }, { $set: { x: 'a'.repeat(LIMIT - idOverhead + 1) } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MongoServerError);
    expectTooLarge(error, 'update');
    expect((await items.findOne({ _id: _id as never }))?.x).toHaveLength(LIMIT - idOverhead);
  });

  it('refuses an update ($push) that grows a document past the limit, and keeps the document unchanged', async () => {
    const half = 'h'.repeat(9 * MIB);
    await items.insertOne({ _id: 'grow' as never, parts: [half] });
    const error = await items.updateOne({ _id: 'grow' as never }, { $push: { parts: half } as never }).catch((caught: unknown) => caught);
    expectTooLarge(error, 'update');
    expect((await items.findOne({ _id: 'grow' as never }))?.parts).toHaveLength(1);
  });

  it('refuses a replacement whose stored form (with the _id added) passes the limit', async () => {
    await items.insertOne({ _id: 'replace' as never, small: true });
    // Under 16 MiB as sent (the driver lets it through), over it once the server keeps the _id.
    const replacement = { x: 'r'.repeat(LIMIT - 4 - (1 + 2 + 4 + 1) - 1 - 4) };
    const error = await items.replaceOne({ _id: 'replace' as never }, replacement).catch((caught: unknown) => caught);
    expectTooLarge(error, 'update');
    expect(await items.findOne({ _id: 'replace' as never })).toEqual({ _id: 'replace', small: true });
  });

  // The filter and the update together stay just under the 17 MB a driver can send in one statement.
  it('refuses an upsert whose new document passes the limit, and inserts nothing', async () => {
    const error = await items
      .updateOne({ _id: 'upserted' as never, tag: 't'.repeat(8 * MIB) }, { $set: { x: 'u'.repeat(8 * MIB + 100) } }, { upsert: true })
      .catch((caught: unknown) => caught);
    expectTooLarge(error, 'upsert');
    expect(await items.countDocuments()).toBe(0);
  });

  it('refuses findOneAndUpdate growing a document and upserting one, as a top-level error', async () => {
    await items.insertOne({ _id: 'fam' as never, x: 'f'.repeat(9 * MIB) });
    const grown = await items.findOneAndUpdate({ _id: 'fam' as never }, { $set: { y: 'g'.repeat(8 * MIB) } }).catch((caught: unknown) => caught);
    expect(grown).toBeInstanceOf(MongoServerError);
    expectTooLarge(grown, 'update');
    expect((await items.findOne({ _id: 'fam' as never }))?.y).toBeUndefined();
    const upserted = await items
      .findOneAndUpdate({ _id: 'fam-new' as never, a: 'a'.repeat(8 * MIB) }, { $set: { b: 'b'.repeat(8 * MIB + 100) } }, { upsert: true })
      .catch((caught: unknown) => caught);
    expectTooLarge(upserted, 'upsert');
    expect(await items.countDocuments({ _id: 'fam-new' as never })).toBe(0);
  });

  it('refuses an insert over the limit: the driver before sending, the server when a client sends it anyway', async () => {
    const oversized = { _id: 'big', x: 'i'.repeat(LIMIT - BSON.calculateObjectSize({ _id: 'big', x: '' }) + 1) };
    const driverError = await items.insertOne(oversized as never).catch((caught: unknown) => caught);
    expect(driverError).toBeInstanceOf(Error);
    expect((driverError as Error).message).toMatch(/larger than the maximum size|too large/);

    const raw = await RawWireClient.connect(database.uri);
    try {
      const { reply } = await raw.command({ insert: items.collectionName, documents: [{ _id: 'small' }, oversized, { _id: 'after' }], ordered: false, $db: db.databaseName });
      expect(reply.ok).toBe(1);
      expect(reply.n).toBe(2);
      expect(reply.writeErrors).toHaveLength(1);
      expect(reply.writeErrors[0].index).toBe(1);
      expectTooLarge(reply.writeErrors[0], 'insert');
    } finally {
      raw.close();
    }
    expect((await items.find().toArray()).map((document) => document._id)).toEqual(['small', 'after']);
  });

  it('refuses a bulk write entry past the limit with a write error naming its index', async () => {
    await items.insertOne({ _id: 'bulk' as never, x: 'b'.repeat(9 * MIB) });
    const error = await items
      .bulkWrite([{ updateOne: { filter: { _id: 'bulk' as never }, update: { $set: { y: 'c'.repeat(8 * MIB) } } } }, { insertOne: { document: { _id: 'second' as never } } }], { ordered: false })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MongoBulkWriteError);
    const writeErrors = (error as MongoBulkWriteError).writeErrors as unknown as Array<{ index: number; code: number; errmsg?: string }>;
    expect(writeErrors.map((entry) => entry.index)).toEqual([0]);
    expectTooLarge(writeErrors[0], 'update');
    expect(await items.countDocuments({ _id: 'second' as never })).toBe(1);
  });
});
