import type { Collection, Document } from 'mongodb';
import { openTestDatabase, type TestDatabase } from './test-database';

describe('embedded engine: aggregate, count and distinct', () => {
  let database: TestDatabase;
  let orders: Collection;
  let customers: Collection;

  beforeAll(async () => {
    database = await openTestDatabase('agg');
    customers = database.db.collection('customers');
    orders = database.db.collection('orders');
    await customers.insertMany([
      { _id: 1, name: 'Ada', city: 'Oslo' },
      { _id: 2, name: 'Grace', city: 'Bergen' },
      { _id: 3, name: 'Linus', city: 'Oslo' },
    ] as unknown as Document[]);
    await orders.insertMany([
      { customerId: 1, total: 10, items: ['a', 'b'], status: 'paid' },
      { customerId: 1, total: 20, items: ['c'], status: 'paid' },
      { customerId: 2, total: 5, items: ['a'], status: 'open' },
      { customerId: 3, total: 40, items: ['b', 'c', 'd'], status: 'paid' },
    ]);
  });

  afterAll(async () => {
    await database.close();
  });

  it('groups, sorts and projects', async () => {
    const totals = await orders
      .aggregate([
        { $match: { status: 'paid' } },
        { $group: { _id: '$customerId', sum: { $sum: '$total' }, count: { $sum: 1 } } },
        { $sort: { sum: -1 } },
        { $project: { _id: 0, customerId: '$_id', sum: 1, count: 1 } },
      ])
      .toArray();
    expect(totals).toEqual([
      { sum: 40, count: 1, customerId: 3 },
      { sum: 30, count: 2, customerId: 1 },
    ]);
  });

  it('unwinds arrays, adds fields, skips and limits', async () => {
    const items = await orders
      .aggregate([{ $unwind: '$items' }, { $addFields: { doubled: { $multiply: ['$total', 2] } } }, { $set: { tag: 'x' } }, { $sort: { items: 1, total: 1 } }, { $skip: 1 }, { $limit: 3 }, { $project: { _id: 0, items: 1, doubled: 1, tag: 1 } }])
      .toArray();
    expect(items).toEqual([
      { items: 'a', doubled: 20, tag: 'x' },
      { items: 'b', doubled: 20, tag: 'x' },
      { items: 'b', doubled: 80, tag: 'x' },
    ]);
  });

  it('joins another collection with $lookup', async () => {
    const joined = await customers
      .aggregate([{ $match: { city: 'Oslo' } }, { $lookup: { from: 'orders', localField: '_id', foreignField: 'customerId', as: 'orders' } }, { $sort: { _id: 1 } }])
      .toArray();
    expect(joined.map((customer) => [customer.name, customer.orders.length])).toEqual([
      ['Ada', 2],
      ['Linus', 1],
    ]);
  });

  it('does not change stored documents when stages rewrite them', async () => {
    await orders.aggregate([{ $set: { total: 0, 'nested.value': 1 } }, { $unset: 'status' }]).toArray();
    expect(await orders.countDocuments({ total: 0 })).toBe(0);
    expect(await orders.countDocuments({ status: { $exists: true } })).toBe(4);
  });

  it('counts with $count and countDocuments, including skip and limit', async () => {
    const [counted] = await orders.aggregate([{ $match: { total: { $gte: 10 } } }, { $count: 'n' }]).toArray();
    expect(counted).toEqual({ n: 3 });
    expect(await orders.countDocuments({ status: 'paid' })).toBe(3);
    expect(await orders.countDocuments({}, { skip: 1, limit: 2 })).toBe(2);
    expect(await orders.estimatedDocumentCount()).toBe(4);
  });

  it('returns aggregate results past the first batch through getMore', async () => {
    const many = database.db.collection('many');
    await many.insertMany(Array.from({ length: 150 }, (_, i) => ({ i })));
    const results = await many.aggregate([{ $sort: { i: -1 } }]).toArray();
    expect(results).toHaveLength(150);
    expect(results[0].i).toBe(149);
  });

  it('answers the count command with n', async () => {
    const reply = await database.db.command({ count: 'orders', query: { customerId: 1 } });
    expect(reply.n).toBe(2);
    expect((await database.db.command({ count: 'no_such_collection' })).n).toBe(0);
  });

  it('lists distinct values, flattening arrays', async () => {
    expect((await orders.distinct('status')).sort()).toEqual(['open', 'paid']);
    expect((await orders.distinct('items', { status: 'paid' })).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(await orders.distinct('customerId', { total: { $gt: 100 } })).toEqual([]);
  });

  it('requires the cursor option', async () => {
    await expect(database.db.command({ aggregate: 'orders', pipeline: [] })).rejects.toMatchObject({ code: 9 });
  });
});
