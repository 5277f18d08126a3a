import { Long, type Collection, type Document } from 'mongodb';
import { openTestDatabase, seededCollection, type TestDatabase } from './test-database';

/**
 * int64 values beyond 2^53 (where a double can no longer tell neighbours apart) compare exactly
 * wherever a filter or pipeline compares them, not only in plain equality and range filters:
 * under `$or`/`$nor`/`$elemMatch`/`$not`, in `$expr` and in `$sort` stages after a `$group`.
 * Every expectation is MongoDB's own answer, so these hold against a real server too.
 */
describe('embedded engine: int64 values compared exactly above 2^53', () => {
  let database: TestDatabase;
  let counters: Collection;
  const big = Long.fromString('9007199254740993'); // 2^53 + 1: as a double it would be 2^53
  const bigger = Long.fromString('9007199254740995');
  const huge = Long.fromString('1152921504606846976'); // 2^60

  beforeAll(async () => {
    database = await openTestDatabase('int64');
    counters = await seededCollection(database, 'counters', [
      { _id: 'twoTo53', n: Long.fromString('9007199254740992'), list: [{ v: Long.fromString('9007199254740992') }] },
      { _id: 'big', n: big, list: [{ v: big }] },
      { _id: 'bigger', n: bigger, list: [{ v: bigger }] },
      { _id: 'huge', n: huge, list: [{ v: huge }] },
      { _id: 'small', n: 5, list: [{ v: 5 }] },
    ]);
  });

  afterAll(async () => {
    await database.close();
  });

  const ids = async (filter: Document) =>
    (await counters.find(filter, { promoteLongs: false }).toArray()).map((document) => String(document._id)).sort();

  it('matches ranges and equalities exactly inside $or, $nor, $not and $elemMatch', async () => {
    expect(await ids({ $or: [{ n: { $gt: big } }, { _id: 'none' }] })).toEqual(['bigger', 'huge']);
    expect(await ids({ $or: [{ n: big }, { _id: 'none' }] })).toEqual(['big']);
    expect(await ids({ $or: [{ n: { $in: [bigger, 5] } }, { _id: 'none' }] })).toEqual(['bigger', 'small']);
    expect(await ids({ $nor: [{ n: { $lte: big } }] })).toEqual(['bigger', 'huge']);
    expect(await ids({ n: { $not: { $gte: big } } })).toEqual(['small', 'twoTo53']);
    expect(await ids({ list: { $elemMatch: { v: { $gt: big, $lt: huge } } } })).toEqual(['bigger']);
    // A double operand compares by value against every int64, not by class.
    expect(await ids({ $or: [{ n: { $gt: 1e18 } }, { _id: 'none' }] })).toEqual(['huge']);
    expect(await ids({ $or: [{ n: { $lt: 100 } }, { _id: 'none' }] })).toEqual(['small']);
  });

  it('compares exactly in $expr', async () => {
    expect(await ids({ $expr: { $gt: ['$n', big] } })).toEqual(['bigger', 'huge']);
    expect(await ids({ $expr: { $eq: ['$n', bigger] } })).toEqual(['bigger']);
    expect(await ids({ $expr: { $lt: ['$n', 10] } })).toEqual(['small']);
    // Aggregation comparisons order every BSON type: a string is greater than any number.
    expect(await ids({ $expr: { $gt: ['$_id', '$n'] } })).toHaveLength(5);
    // A missing field is below null and equal only to another missing one.
    expect(await ids({ $expr: { $eq: ['$missing', null] } })).toEqual([]);
    expect(await ids({ $expr: { $lt: ['$missing', null] } })).toHaveLength(5);
  });

  it('sorts exactly in $sort stages the engine does not run first', async () => {
    const sorted = await counters
      .aggregate([{ $group: { _id: '$n' } }, { $sort: { _id: -1 } }], { promoteLongs: false })
      .toArray();
    expect(sorted.map((group) => String(group._id))).toEqual(['1152921504606846976', '9007199254740995', '9007199254740993', '9007199254740992', '5']);
    const projected = await counters
      .aggregate([{ $project: { n: 1, bigger: { $gte: ['$n', bigger] }, order: { $cmp: ['$n', big] } } }, { $sort: { n: 1 } }], { promoteLongs: false })
      .toArray();
    expect(projected.map((document) => [document._id, document.bigger, document.order])).toEqual([
      ['small', false, -1],
      ['twoTo53', false, -1],
      ['big', false, 0],
      ['bigger', true, 1],
      ['huge', true, 1],
    ]);
  });

  it('updates only the documents an exact $or filter selects', async () => {
    const result = await counters.updateMany({ $or: [{ n: bigger }, { n: { $gt: huge } }] }, { $set: { touched: true } });
    expect(result.modifiedCount).toBe(1);
    expect(await ids({ touched: true })).toEqual(['bigger']);
  });
});
