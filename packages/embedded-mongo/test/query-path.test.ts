import { BSON } from 'bson';
import { Double, Long, type Document } from 'mongodb';
import { decodeMsgBody, decodeReplyDocument, RawWireClient } from './raw-wire-client';
import { openTestDatabase, seededCollection, type TestDatabase } from './test-database';

/** The element names of the array at `path` (names of nested documents, then the array) inside one BSON document. */
function arrayKeys(bson: Uint8Array, path: string[]): string[] {
  let offset = 0;
  for (const name of path) {
    const element = [...BSON.onDemand.parseToElements(bson, offset)].find(([, nameOffset, nameLength]) => Buffer.from(bson).toString('latin1', nameOffset, nameOffset + nameLength) === name);
    if (!element) throw new Error(`no element ${name}`);
    offset = element[3];
  }
  return [...BSON.onDemand.parseToElements(bson, offset)].map(([, nameOffset, nameLength]) => Buffer.from(bson).toString('latin1', nameOffset, nameOffset + nameLength));
}

/**
 * The read path as issue 14 reshaped it (equality $lookup through the foreign index, results in
 * index order returned without a sort, batches serialised as they are taken): the answers must
 * stay MongoDB's, whatever path produced them.
 */
describe('embedded engine: read path', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase('query_path');
  });
  afterAll(() => database.close());

  describe('$lookup by localField and foreignField', () => {
    beforeAll(async () => {
      await seededCollection(database, 'lk_flights', [
        { _id: 1, flightId: 10 },
        { _id: 2, flightId: 11 },
        { _id: 3, flightId: 12 },
        { _id: 4 },
        { _id: 5, flightId: [10, 12] },
        { _id: 6, flightId: new Long(11) },
        { _id: 7, flightId: [] },
      ]);
      const lists = await seededCollection(database, 'lk_lists', [
        { _id: 'a', flightId: 10, passengerCount: 3, passengers: ['x', 'y', 'z'] },
        { _id: 'b', flightId: new Double(11), passengerCount: 1, passengers: ['w'] },
        { _id: 'c', flightId: null, passengerCount: 7, passengers: [] },
        { _id: 'd', passengerCount: 9, passengers: [] },
        // An empty array is no value: not even null.
        { _id: 'f', flightId: [], passengerCount: 4, passengers: [] },
      ]);
      await lists.createIndex({ flightId: 1 }, { unique: false });
      // The same documents without an index: the join must answer the same.
      await seededCollection(database, 'lk_lists_unindexed', await lists.find({}).toArray());
    });

    const joined = (from: string, pipeline?: Document[]) =>
      database.db
        .collection('lk_flights')
        .aggregate([{ $sort: { _id: 1 } }, { $lookup: { from, localField: 'flightId', foreignField: 'flightId', ...(pipeline ? { pipeline } : {}), as: 'lists' } }])
        .toArray();

    it.each(['lk_lists', 'lk_lists_unindexed'])('matches by value across number types, null to missing, and arrays element by element (%s)', async (from) => {
      const rows = await joined(from);
      const ids = (row: Document) => (row.lists as Document[]).map((list) => list._id).sort();
      expect(rows.map((row) => [row._id, ids(row)])).toEqual([
        [1, ['a']],
        [2, ['b']],
        [3, []],
        // A missing local field is null: it joins the list whose flightId is null and the one without.
        [4, ['c', 'd']],
        [5, ['a']],
        [6, ['b']],
        // An empty array is `$in: []`: it matches nothing.
        [7, []],
      ]);
    });

    it.each(['lk_lists', 'lk_lists_unindexed'])('runs the pipeline on the matched documents only (%s)', async (from) => {
      const rows = await joined(from, [{ $project: { _id: 0, passengerCount: 1 } }]);
      expect(rows.map((row) => row.lists)).toEqual([[{ passengerCount: 3 }], [{ passengerCount: 1 }], [], [{ passengerCount: 7 }, { passengerCount: 9 }], [{ passengerCount: 3 }], [{ passengerCount: 1 }], []]);
      const filtered = await joined(from, [{ $match: { passengerCount: { $gt: 5 } } }, { $project: { passengers: 0 } }]);
      expect(filtered.map((row) => (row.lists as Document[]).map((list) => list._id))).toEqual([[], [], [], ['c', 'd'], [], [], []]);
    });

    it('feeds later stages, which may rewrite what they get without touching stored documents', async () => {
      const rows = await database.db
        .collection('lk_flights')
        .aggregate([
          { $match: { _id: { $lte: 3 } } },
          { $lookup: { from: 'lk_lists', localField: 'flightId', foreignField: 'flightId', pipeline: [{ $project: { _id: 0, passengerCount: 1 } }], as: 'lists' } },
          { $project: { _id: 1, passengers: { $ifNull: [{ $first: '$lists.passengerCount' }, 0] } } },
          { $set: { doubled: { $multiply: ['$passengers', 2] } } },
        ])
        .toArray();
      expect(rows).toEqual([
        { _id: 1, passengers: 3, doubled: 6 },
        { _id: 2, passengers: 1, doubled: 2 },
        { _id: 3, passengers: 0, doubled: 0 },
      ]);
      expect(await database.db.collection('lk_lists').findOne({ _id: 'a' as unknown as never })).toMatchObject({ passengerCount: 3, passengers: ['x', 'y', 'z'] });
    });

    it('sees a transaction’s own writes, and not another’s', async () => {
      const session = database.client.startSession();
      try {
        session.startTransaction();
        await database.db.collection('lk_lists').insertOne({ _id: 'e' as unknown as never, flightId: 12, passengerCount: 2 }, { session });
        const inside = await database.db
          .collection('lk_flights')
          .aggregate([{ $match: { _id: 3 } }, { $lookup: { from: 'lk_lists', localField: 'flightId', foreignField: 'flightId', as: 'lists' } }], { session })
          .toArray();
        const outside = await database.db
          .collection('lk_flights')
          .aggregate([{ $match: { _id: 3 } }, { $lookup: { from: 'lk_lists', localField: 'flightId', foreignField: 'flightId', as: 'lists' } }])
          .toArray();
        expect(inside[0].lists.map((list: Document) => list._id)).toEqual(['e']);
        expect(outside[0].lists).toEqual([]);
      } finally {
        await session.abortTransaction();
        await session.endSession();
      }
    });
  });

  describe('sorting what an index already returns in order', () => {
    beforeAll(async () => {
      const events = await seededCollection(
        database,
        'sorted_events',
        // Inserted out of order, with ties on `at` broken by `n`.
        [5, 3, 9, 1, 7, 2, 8, 6, 4, 0].map((n) => ({ _id: n, at: new Date(Date.UTC(2026, 4, 1 + Math.floor(n / 2))), n, group: n % 3 })),
      );
      await events.createIndex({ at: 1 });
    });

    it('returns the order the sort asks for, ties included, whether or not the index gave it', async () => {
      const events = database.db.collection('sorted_events');
      const range = { at: { $gte: new Date(Date.UTC(2026, 4, 1)), $lt: new Date(Date.UTC(2026, 4, 10)) } };
      const byAt = await events.find(range).sort({ at: 1, n: 1 }).toArray();
      expect(byAt.map((event) => event.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      const byAtDescending = await events.find(range).sort({ at: 1, n: -1 }).toArray();
      expect(byAtDescending.map((event) => event.n)).toEqual([1, 0, 3, 2, 5, 4, 7, 6, 9, 8]);
      const byGroup = await events.aggregate([{ $match: range }, { $sort: { group: 1, n: 1 } }]).toArray();
      expect(byGroup.map((event) => event.n)).toEqual([0, 3, 6, 9, 1, 4, 7, 2, 5, 8]);
    });
  });

  describe('batches', () => {
    it('serialises documents larger than any batch before them, and keeps each batch within 16 MiB', async () => {
      const text = 'x'.repeat(5 * 1024 * 1024);
      const big = await seededCollection(database, 'big_documents', [0, 1, 2, 3, 4].map((n) => ({ _id: n, text })));
      const first = await database.db.command({ find: 'big_documents', filter: {}, sort: { _id: 1 }, batchSize: 10 });
      // Three 5 MiB documents fit in 16 MiB, a fourth does not.
      expect(first.cursor.firstBatch.map((document: Document) => document._id)).toEqual([0, 1, 2]);
      expect(first.cursor.firstBatch.every((document: Document) => document.text === text)).toBe(true);
      const rest = await database.db.command({ getMore: first.cursor.id, collection: 'big_documents' });
      expect(rest.cursor.nextBatch.map((document: Document) => document._id)).toEqual([3, 4]);
      expect(Number(rest.cursor.id)).toBe(0);
      expect(await big.countDocuments({})).toBe(5);
    });

    it('writes valid BSON batches, keyed 0, 1, 2…, in OP_MSG and in legacy OP_REPLY answers', async () => {
      await seededCollection(database, 'keyed_documents', Array.from({ length: 1205 }, (_, n) => ({ _id: n, text: `t${n}` })));
      const client = await RawWireClient.connect(database.uri);
      try {
        const command = { find: 'keyed_documents', filter: {}, sort: { _id: 1 }, batchSize: 2000, $db: database.db.databaseName };
        const { frame, requestId } = client.msgFrame(command);
        const replied = client.nextFrame();
        client.sendBytes(frame);
        const msg = await replied;
        expect(msg.readInt32LE(8)).toBe(requestId);
        expect(msg.readInt32LE(0)).toBe(msg.length);
        const body = msg.subarray(21);
        expect(arrayKeys(body, ['cursor', 'firstBatch'])).toEqual(Array.from({ length: 1205 }, (_, n) => String(n)));
        expect(decodeMsgBody(msg)).toMatchObject({ ok: 1, cursor: { id: 0, ns: `${database.db.databaseName}.keyed_documents` } });
        expect(decodeMsgBody(msg).cursor.firstBatch[1204]).toEqual({ _id: 1204, text: 't1204' });

        const { $db: _db, ...legacyCommand } = command;
        const legacy = client.queryFrame(`${database.db.databaseName}.$cmd`, legacyCommand);
        const legacyReplied = client.nextFrame();
        client.sendBytes(legacy.frame);
        const reply = await legacyReplied;
        expect(reply.readInt32LE(0)).toBe(reply.length);
        expect(arrayKeys(reply.subarray(36), ['cursor', 'firstBatch'])).toHaveLength(1205);
        expect(decodeReplyDocument(reply).cursor.firstBatch.map((document: Document) => document._id)).toEqual(Array.from({ length: 1205 }, (_, n) => n));
      } finally {
        client.close();
      }
    });

    it('answers a find of thousands of documents in one batch when asked, in order', async () => {
      const many = await seededCollection(database, 'many_documents', Array.from({ length: 3000 }, (_, n) => ({ _id: n, label: `document ${n}`, nested: { n, at: new Date(n) } })));
      const reply = await database.db.command({ find: 'many_documents', filter: { _id: { $gte: 0 } }, sort: { _id: 1 }, batchSize: 100_000 });
      expect(Number(reply.cursor.id)).toBe(0);
      expect(reply.cursor.firstBatch).toHaveLength(3000);
      expect(reply.cursor.firstBatch[2999]).toEqual({ _id: 2999, label: 'document 2999', nested: { n: 2999, at: new Date(2999) } });
      expect(await many.find({}, { projection: { _id: 0, label: 1 } }).limit(2).toArray()).toEqual([{ label: 'document 0' }, { label: 'document 1' }]);
    });
  });
});
