import { Decimal128, Double, Int32, Long, Timestamp, type Collection, type Document } from 'mongodb';
import { isEmbeddedEngine, openTestDatabase, seededCollection, serverError, type TestDatabase } from './test-database';

/**
 * Every number keeps its BSON type (int32, int64, double, decimal128) through storage, queries,
 * updates and replies, and numbers of different types but equal value are equal, as in MongoDB.
 * Expectations are MongoDB's own answers (its manual: "$type", "$inc", "$mul", "Comparison/Sort
 * Order"), so they hold against a real server too, except where marked as refused by the engine.
 */
type Numbers = Collection;

/** A filter on `_id` of any type (the driver's default schema types `_id` as ObjectId). */
const byId = (id: unknown): Document => ({ _id: id });

describe('embedded engine: numeric BSON types kept exactly', () => {
  let database: TestDatabase;
  let embedded: boolean;
  const raw = { promoteValues: false } as const;

  beforeAll(async () => {
    database = await openTestDatabase('numtypes');
    embedded = await isEmbeddedEngine(database.db);
  });

  afterAll(async () => {
    await database.close();
  });

  const typed = async (collectionName: string, documents: Document[]) => (await seededCollection(database, collectionName, documents)) as Numbers;

  it('reads back each number with the type it was written as', async () => {
    const numbers = await typed('readback', [
      { _id: 1, i: new Int32(5), l: Long.fromNumber(5), d: new Double(5), f: 5.5, dec: Decimal128.fromString('5.10'), big: Long.fromString('9007199254740993'), nested: { list: [new Double(2), Long.fromNumber(-1)] }, ts: new Timestamp({ t: 5, i: 1 }) },
    ]);
    const document = await numbers.findOne(byId(1), raw);
    expect(document?.i).toBeInstanceOf(Int32);
    expect(document?.l).toBeInstanceOf(Long);
    expect(document?.d).toBeInstanceOf(Double);
    expect(document?.f).toBeInstanceOf(Double);
    expect(document?.dec).toBeInstanceOf(Decimal128);
    expect(String(document?.dec)).toBe('5.10');
    expect(String(document?.big)).toBe('9007199254740993');
    expect(document?.nested.list[0]).toBeInstanceOf(Double);
    expect(document?.nested.list[1]).toBeInstanceOf(Long);
    // A Timestamp (a subclass of Long in the bson package) stays a Timestamp.
    expect(document?.ts).toEqual(new Timestamp({ t: 5, i: 1 }));

    const asBigInt = await numbers.findOne(byId(1), { useBigInt64: true });
    expect(asBigInt?.l).toBe(5n);
    expect(asBigInt?.i).toBe(5);
    expect(asBigInt?.big).toBe(9007199254740993n);

    // Through a projection and an aggregation that only passes values along.
    const projected = await numbers.findOne(byId(1), { ...raw, projection: { l: 1, d: 1 } });
    expect(projected?.l).toBeInstanceOf(Long);
    expect(projected?.d).toBeInstanceOf(Double);
    const [aggregated] = await numbers.aggregate([{ $match: byId(1) }, { $project: { l: 1, d: 1 } }], raw).toArray();
    expect(aggregated.l).toBeInstanceOf(Long);
    expect(aggregated.d).toBeInstanceOf(Double);
  });

  describe('$type', () => {
    let numbers: Numbers;

    beforeAll(async () => {
      numbers = await typed('types', [
        { _id: 'int', n: new Int32(1) },
        { _id: 'long', n: Long.fromNumber(1) },
        { _id: 'double', n: new Double(1) },
        { _id: 'fraction', n: 1.5 },
        { _id: 'decimal', n: Decimal128.fromString('1') },
        { _id: 'string', n: '1' },
      ]);
    });

    const ids = async (filter: Document) => (await numbers.find(filter).toArray()).map((document) => String(document._id)).sort();

    it('matches by the stored type in queries', async () => {
      expect(await ids({ n: { $type: 'int' } })).toEqual(['int']);
      expect(await ids({ n: { $type: 'long' } })).toEqual(['long']);
      expect(await ids({ n: { $type: 'double' } })).toEqual(['double', 'fraction']);
      expect(await ids({ n: { $type: 'decimal' } })).toEqual(['decimal']);
      expect(await ids({ n: { $type: 18 } })).toEqual(['long']);
      expect(await ids({ n: { $type: 'number' } })).toEqual(['decimal', 'double', 'fraction', 'int', 'long']);
    });

    it('answers the stored type in aggregation', async () => {
      const rows = await numbers.aggregate([{ $project: { t: { $type: '$n' }, isNumber: { $isNumber: '$n' } } }, { $sort: byId(1) }]).toArray();
      expect(rows).toEqual([
        { _id: 'decimal', t: 'decimal', isNumber: true },
        { _id: 'double', t: 'double', isNumber: true },
        { _id: 'fraction', t: 'double', isNumber: true },
        { _id: 'int', t: 'int', isNumber: true },
        { _id: 'long', t: 'long', isNumber: true },
        { _id: 'string', t: 'string', isNumber: false },
      ]);
    });

    it('treats 1, NumberLong(1) and 1.0 as equal in queries, $in and $expr', async () => {
      const equalToOne = ['double', 'int', 'long'];
      expect(await ids({ n: 1 })).toEqual(expect.arrayContaining(equalToOne));
      expect(await ids({ n: Long.fromNumber(1), _id: { $ne: 'decimal' } })).toEqual(equalToOne);
      expect(await ids({ n: new Double(1), _id: { $ne: 'decimal' } })).toEqual(equalToOne);
      expect(await ids({ n: { $in: [Long.fromNumber(1)] }, _id: { $ne: 'decimal' } })).toEqual(equalToOne);
      expect(await ids({ $expr: { $eq: ['$n', Long.fromNumber(1)] }, _id: { $ne: 'decimal' } })).toEqual(equalToOne);
      expect(await ids({ n: { $gt: 1 } })).toEqual(['fraction']);
    });

    it('groups 1, NumberLong(1) and 1.0 together', async () => {
      const groups = await numbers.aggregate([{ $match: { _id: { $in: ['int', 'long', 'double', 'fraction'] } } }, { $group: { _id: '$n', count: { $sum: 1 } } }, { $sort: { _id: 1 } }]).toArray();
      expect(groups.map((group) => [Number(group._id), group.count])).toEqual([[1, 3], [1.5, 1]]);
    });

    it('computes with kept types in aggregation arithmetic and $mod', async () => {
      const [total] = await numbers.aggregate([{ $match: { _id: { $in: ['int', 'long', 'double', 'fraction'] } } }, { $group: { _id: null, sum: { $sum: '$n' }, max: { $max: '$n' } } }]).toArray();
      expect(Number(total.sum)).toBe(4.5);
      expect(Number(total.max)).toBe(1.5);
      const [added] = await numbers.aggregate([{ $match: { _id: 'long' } }, { $project: { plus: { $add: ['$n', Long.fromNumber(2)] } } }]).toArray();
      expect(Number(added.plus)).toBe(3);
      const [mapped] = await numbers
        .aggregate([{ $match: { _id: 'long' } }, { $project: { list: { $map: { input: [Long.fromNumber(4), new Double(5)], in: { $multiply: ['$$this', '$n'] } } } } }])
        .toArray();
      expect(mapped.list).toEqual([4, 5]);
      // A double is truncated toward zero first (1.5 counts as 1), as MongoDB's numberLong() does.
      expect(await ids({ n: { $mod: [2, 1] }, _id: { $ne: 'decimal' } })).toEqual(['double', 'fraction', 'int', 'long']);
    });
  });

  describe('update operators', () => {
    let counters: Numbers;
    let next = 0;

    beforeAll(async () => {
      counters = database.db.collection('counters') as Numbers;
    });

    /** Inserts `fields`, applies `update`, and reads the document back with raw number types. */
    const afterUpdate = async (fields: Document, update: Document) => {
      next += 1;
      await counters.insertOne({ ...byId(next), ...fields });
      await counters.updateOne(byId(next), update);
      return (await counters.findOne(byId(next), raw)) as Document;
    };

    it('$inc keeps int32 + int32 as int32 and promotes to int64 on overflow', async () => {
      expect((await afterUpdate({ n: new Int32(1) }, { $inc: { n: new Int32(2) } })).n).toEqual(new Int32(3));
      const overflowed = (await afterUpdate({ n: new Int32(2147483647) }, { $inc: { n: new Int32(1) } })).n;
      expect(overflowed).toBeInstanceOf(Long);
      expect(String(overflowed)).toBe('2147483648');
    });

    it('$inc with an int64 gives an int64, exact above 2^53', async () => {
      const long = (await afterUpdate({ n: new Int32(1) }, { $inc: { n: Long.fromNumber(1) } })).n;
      expect(long).toBeInstanceOf(Long);
      expect(String(long)).toBe('2');
      const exact = (await afterUpdate({ n: Long.fromString('9007199254740993') }, { $inc: { n: new Int32(2) } })).n;
      expect(exact).toBeInstanceOf(Long);
      expect(String(exact)).toBe('9007199254740995');
      const small = (await afterUpdate({ n: Long.fromNumber(10) }, { $inc: { n: new Int32(-10) } })).n;
      expect(small).toEqual(Long.fromNumber(0));
    });

    it('$inc with any double gives a double, even with an integral value', async () => {
      expect((await afterUpdate({ n: new Int32(1) }, { $inc: { n: new Double(1) } })).n).toEqual(new Double(2));
      expect((await afterUpdate({ n: new Double(1.5) }, { $inc: { n: new Int32(1) } })).n).toEqual(new Double(2.5));
      expect((await afterUpdate({ n: Long.fromNumber(1) }, { $inc: { n: 0.5 } })).n).toEqual(new Double(1.5));
    });

    it('$inc and $mul on a missing field take the operand type ($mul: zero of it)', async () => {
      const document = await afterUpdate({}, { $inc: { a: Long.fromNumber(3), b: new Double(4) }, $mul: { c: Long.fromNumber(7), d: new Double(2) } });
      expect(document.a).toEqual(Long.fromNumber(3));
      expect(document.b).toEqual(new Double(4));
      expect(document.c).toEqual(Long.fromNumber(0));
      expect(document.d).toEqual(new Double(0));
    });

    it('$mul promotes like $inc', async () => {
      expect((await afterUpdate({ n: new Int32(6) }, { $mul: { n: new Int32(7) } })).n).toEqual(new Int32(42));
      const overflowed = (await afterUpdate({ n: new Int32(65536) }, { $mul: { n: new Int32(65536) } })).n;
      expect(overflowed).toBeInstanceOf(Long);
      expect(String(overflowed)).toBe('4294967296');
      expect((await afterUpdate({ n: Long.fromNumber(3) }, { $mul: { n: new Double(2) } })).n).toEqual(new Double(6));
    });

    it('refuses an int64 overflow and leaves the document unchanged', async () => {
      await counters.insertOne({ ...byId('max'), n: Long.MAX_VALUE });
      const error = await serverError(counters.updateOne(byId('max'), { $inc: { n: new Int32(1) } }));
      expect(error.code).toBe(2);
      expect(String((await counters.findOne(byId('max'), raw))?.n)).toBe(Long.MAX_VALUE.toString());
    });

    it('$min and $max compare across types and store the winning operand with its type', async () => {
      expect((await afterUpdate({ n: new Int32(5) }, { $max: { n: Long.fromNumber(7) } })).n).toEqual(Long.fromNumber(7));
      expect((await afterUpdate({ n: new Int32(5) }, { $max: { n: Long.fromNumber(3) } })).n).toEqual(new Int32(5));
      expect((await afterUpdate({ n: Long.fromNumber(5) }, { $min: { n: new Double(3) } })).n).toEqual(new Double(3));
      expect((await afterUpdate({}, { $min: { n: new Double(3) } })).n).toEqual(new Double(3));
    });

    it('$set, replacements, findOneAndUpdate and pipeline updates keep the types', async () => {
      expect((await afterUpdate({ n: 1 }, { $set: { n: Long.fromNumber(1), d: new Double(2) } })).n).toEqual(Long.fromNumber(1));
      next += 1;
      await counters.insertOne({ ...byId(next), n: new Int32(1) });
      await counters.replaceOne(byId(next), { n: new Double(1), l: Long.fromNumber(2) });
      expect(await counters.findOne(byId(next), raw)).toEqual({ _id: new Int32(next), n: new Double(1), l: Long.fromNumber(2) });
      const returned = await counters.findOneAndUpdate(byId(next), { $inc: { l: Long.fromNumber(1) } }, { ...raw, returnDocument: 'after' });
      expect(returned?.l).toEqual(Long.fromNumber(3));
      // A pipeline update leaves the fields it does not compute with their types.
      await counters.updateOne(byId(next), [{ $set: { added: 1 } }]);
      expect(await counters.findOne(byId(next), raw)).toEqual({ _id: new Int32(next), n: new Double(1), l: Long.fromNumber(3), added: new Int32(1) });
    });

    it('computes $inc through $[] on plain numbers, and refuses it on kept types rather than skipping them', async () => {
      expect((await afterUpdate({ list: [new Int32(1), 2.5] }, { $inc: { 'list.$[]': new Int32(1) } })).list).toEqual([new Int32(2), new Double(3.5)]);
      next += 1;
      await counters.insertOne({ ...byId(next), list: [Long.fromNumber(1)] });
      const update = counters.updateOne(byId(next), { $inc: { 'list.$[]': new Int32(1) } });
      if (!embedded) {
        await update;
        expect((await counters.findOne(byId(next), raw))?.list).toEqual([Long.fromNumber(2)]);
        return;
      }
      expect((await serverError(update)).code).toBe(115);
      expect((await counters.findOne(byId(next), raw))?.list).toEqual([Long.fromNumber(1)]);
    });

    it('refuses $inc on a Decimal128 value (the engine does not compute in decimal)', async () => {
      await counters.insertOne({ ...byId('decimal'), n: Decimal128.fromString('1.5') });
      const update = counters.updateOne(byId('decimal'), { $inc: { n: 1 } });
      if (!embedded) {
        await update;
        expect(String((await counters.findOne(byId('decimal')))?.n)).toBe('2.5');
        return;
      }
      const error = await serverError(update);
      expect(error.code).toBe(115);
      expect(error.message).toContain('Decimal128');
    });
  });

  it('treats numbers of different types but equal value as one key in unique indexes', async () => {
    const keys = database.db.collection('unique') as Numbers;
    await keys.createIndex({ k: 1 }, { unique: true });
    await keys.insertOne({ k: new Int32(1) });
    expect((await serverError(keys.insertOne({ k: Long.fromNumber(1) }))).code).toBe(11000);
    expect((await serverError(keys.insertOne({ k: new Double(1) }))).code).toBe(11000);
    await keys.insertOne({ k: new Double(1.5) });
    expect(await keys.countDocuments({ k: Long.fromNumber(1) })).toBe(1);
    expect(await keys.countDocuments({ k: { $gte: new Double(1), $lt: Long.fromNumber(2) } })).toBe(2);
  });

  it('sorts numbers of every type by value', async () => {
    const numbers = await typed('sorted', [
      { _id: 'l3', n: Long.fromNumber(3) },
      { _id: 'd2.5', n: 2.5 },
      { _id: 'i1', n: new Int32(1) },
      { _id: 'd2', n: new Double(2) },
      { _id: 'big', n: Long.fromString('9007199254740993') },
      { _id: 'neg', n: Long.fromNumber(-4) },
    ]);
    await numbers.createIndex({ n: 1 });
    const order = (await numbers.find({}).sort({ n: 1 }).toArray()).map((document) => document._id);
    expect(order).toEqual(['neg', 'i1', 'd2', 'd2.5', 'l3', 'big']);
    const ranged = (await numbers.find({ n: { $gt: new Int32(1), $lt: Long.fromNumber(4) } } as Document).sort({ n: -1 }).toArray()).map((document) => document._id);
    expect(ranged).toEqual(['l3', 'd2.5', 'd2']);
    const distinct = await numbers.distinct('n', { n: { $lte: 3 } });
    expect(distinct.map(Number)).toEqual([-4, 1, 2, 2.5, 3]);
  });
});
