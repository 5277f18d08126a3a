import { Binary, Long, ObjectId, type Document } from 'mongodb';
import { openTestDatabase, seededCollection, serverError, type TestDatabase } from './test-database';

/**
 * Silent divergences found by running mongoose's own test suite against the engine (outside the
 * project): queries that matched nothing, updates that changed less than asked, hints that
 * changed no order. Each now behaves as MongoDB 7.0 does, so these hold against a real server too.
 */
describe('embedded engine: behaviours mongoose’s test suite expects', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase('mongoose_suite');
  });

  afterAll(async () => {
    await database.close();
  });

  const seeded = (name: string, documents: Document[]) => seededCollection(database, name, documents);
  const ids = (documents: Document[]) => documents.map((document) => document._id);

  it('matches $type by every BSON type the values are stored as', async () => {
    const values = await seeded('types', [
      { _id: 'long', v: Long.fromString('9223372036854775807') },
      { _id: 'int', v: 42 },
      { _id: 'double', v: 4.5 },
      { _id: 'objectId', v: new ObjectId() },
      { _id: 'binData', v: new Binary(Buffer.from('hi'), 4) },
      { _id: 'array', v: ['text'] },
      { _id: 'date', v: new Date(0) },
    ]);
    const byType = async (type: unknown) => ids(await values.find({ v: { $type: type } } as Document).sort({ _id: 1 }).toArray());
    expect(await byType('long')).toEqual(['long']);
    expect(await byType(18)).toEqual(['long']);
    expect(await byType('int')).toEqual(['int']);
    expect(await byType('double')).toEqual(['double']);
    expect(await byType('objectId')).toEqual(['objectId']);
    expect(await byType('binData')).toEqual(['binData']);
    expect(await byType('number')).toEqual(['double', 'int', 'long']);
    // An array matches 'array' itself, and any type one of its elements has.
    expect(await byType('array')).toEqual(['array']);
    expect(await byType(['string', 'date'])).toEqual(['array', 'date']);
    expect((await serverError(values.find({ v: { $type: 'nonsense' } } as Document).toArray())).code).toBe(2);
  });

  it('tests bits of BinData and of int64 values with $bitsAllSet, $bitsAnySet, $bitsAllClear and $bitsAnyClear', async () => {
    const bits = await seeded('bits', [
      { _id: 'uuid', v: new Binary(Buffer.from(`ff${'00'.repeat(15)}`, 'hex'), 4) },
      { _id: 'long', v: Long.fromString('-9223372036854775808') },
      { _id: 'five', v: 5 },
    ]);
    const matching = async (filter: Document) => ids(await bits.find(filter).sort({ _id: 1 }).toArray());
    expect(await matching({ v: { $bitsAllSet: [0, 4] } })).toEqual(['uuid']);
    expect(await matching({ v: { $bitsAllSet: 2 ** 15 } })).toEqual([]);
    expect(await matching({ v: { $bitsAnySet: [8] } })).toEqual([]);
    expect(await matching({ v: { $bitsAnySet: [63] } })).toEqual(['long']);
    expect(await matching({ v: { $bitsAllSet: 5 } })).toEqual(['five', 'uuid']);
    expect(await matching({ v: { $bitsAllClear: [16, 17, 18] } })).toEqual(['five', 'long', 'uuid']);
    expect(await matching({ v: { $bitsAnyClear: 7 } })).toEqual(['five', 'long']);
  });

  it('sets every field through the positional element the filter matched, even when the update changes the matched field', async () => {
    const parents = await seeded('positional', [{ _id: 1, children: [{ name: 'x' }, { name: 'foo' }] }]);
    await parents.updateOne({ 'children.name': 'foo' } as Document, { $set: { 'children.$.name': 'bar', 'children.$.updatedAt': new Date(5) } });
    expect(await parents.findOne({ _id: 1 } as Document)).toEqual({ _id: 1, children: [{ name: 'x' }, { name: 'bar', updatedAt: new Date(5) }] });
    const missing = await serverError(parents.updateOne({ _id: 1 } as Document, { $set: { 'children.$.name': 'z' } }));
    expect(missing.code).toBe(2);
  });

  it('returns documents in the hinted index order when nothing else sorts them, as an index scan does', async () => {
    const people = await seeded('hinted', [
      { _id: 1, name: 'Andrew', qty: 4 },
      { _id: 2, name: 'Betty', qty: 5 },
      { _id: 3, name: 'Charlie', qty: 4 },
      { _id: 4, name: 'Dora' },
    ]);
    await people.createIndex({ qty: -1, name: -1 });
    await people.createIndex({ qty: 1 }, { sparse: true, name: 'qty_sparse' });
    expect(ids(await people.find({ name: { $ne: 'Dora' } }).hint({ qty: -1, name: -1 }).toArray())).toEqual([2, 3, 1]);
    expect(ids(await people.aggregate([{ $match: {} }], { hint: { qty: -1, name: -1 } }).toArray())).toEqual([2, 3, 1, 4]);
    // A sparse index holds no entry for a document without the field: hinting it leaves that document out.
    expect(ids(await people.find({}).hint('qty_sparse').toArray())).toEqual([1, 3, 2]);
    // An explicit sort still decides.
    expect(ids(await people.find({}).hint({ qty: -1, name: -1 }).sort({ _id: -1 }).toArray())).toEqual([4, 3, 2, 1]);
  });

  it('writes a BinData value that differs from the stored one only by subtype', async () => {
    const files = await seeded('subtypes', [{ _id: 1, buf: new Binary(Buffer.from('hi'), 128) }]);
    const result = await files.updateOne({ _id: 1 } as Document, { $set: { buf: new Binary(Buffer.from('hi'), 0) } });
    expect(result.modifiedCount).toBe(1);
    expect(((await files.findOne({ _id: 1 } as Document))?.buf as Binary).sub_type).toBe(0);
  });

  it('keeps a field named __proto__ as an ordinary field through inserts and updates', async () => {
    const mixed = await seeded('proto', [JSON.parse('{"_id": 1, "path": {"__proto__": "inserted"}}') as Document]);
    const inserted = await mixed.findOne({ _id: 1 } as Document);
    expect(Object.prototype.hasOwnProperty.call(inserted?.path, '__proto__')).toBe(true);
    await mixed.updateOne({ _id: 1 } as Document, JSON.parse('{"$set": {"path": {"__proto__": "abcd"}}}') as Document);
    const updated = await mixed.findOne({ _id: 1 } as Document);
    expect(Object.getOwnPropertyDescriptor(updated?.path, '__proto__')?.value).toBe('abcd');
  });

  it('names an unknown aggregation stage as MongoDB does (40324)', async () => {
    const any = await seeded('stages', [{ _id: 1 }]);
    const error = await serverError(any.aggregate([{ $fakeStage: { name: 'test' } }]).toArray());
    expect(error.code).toBe(40324);
    expect(error.message).toBe("Unrecognized pipeline stage name: '$fakeStage'");
  });
});
