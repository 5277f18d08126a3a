import mongoose from 'mongoose';
import { testDatabaseUri, uniqueDatabaseName } from './test-database';

interface Passenger {
  email: string;
  name: string;
  flight: string;
  seat?: string;
  born?: Date;
  bags: number;
  tags: string[];
  legs: Array<{ from: string; to: string }>;
}

describe('embedded engine: a mongoose model', () => {
  let connection: mongoose.Connection;
  let PassengerModel: mongoose.Model<Passenger>;

  beforeAll(async () => {
    connection = await mongoose.createConnection(testDatabaseUri(uniqueDatabaseName('mongoose'))).asPromise();
    const schema = new mongoose.Schema<Passenger>(
      {
        email: { type: String, required: true, unique: true },
        name: { type: String, required: true },
        flight: { type: String, required: true, index: true },
        seat: String,
        born: Date,
        bags: { type: Number, default: 0 },
        tags: [String],
        legs: [{ _id: false, from: String, to: String }],
      },
      { timestamps: true },
    );
    schema.index({ flight: 1, seat: 1 }, { unique: true, partialFilterExpression: { seat: { $type: 'string' } } });
    PassengerModel = connection.model<Passenger>('Passenger', schema);
    await PassengerModel.init();
  });

  afterAll(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  beforeEach(async () => {
    await PassengerModel.deleteMany({});
  });

  it('creates the schema indexes on init', async () => {
    const indexes = await PassengerModel.listIndexes();
    expect(indexes.map((index) => index.name).sort()).toEqual(['_id_', 'email_1', 'flight_1', 'flight_1_seat_1']);
    expect(indexes.find((index) => index.name === 'email_1')?.unique).toBe(true);
  });

  it('saves, finds, updates and deletes documents', async () => {
    const created = await PassengerModel.create({ email: 'ada@example.com', name: 'Ada', flight: 'BF100', born: new Date('1990-05-01'), tags: ['vip'], legs: [{ from: 'OSL', to: 'LHR' }] });
    expect(created._id).toBeInstanceOf(mongoose.Types.ObjectId);
    const found = await PassengerModel.findById(created._id).lean();
    expect(found).toMatchObject({ email: 'ada@example.com', bags: 0, tags: ['vip'], legs: [{ from: 'OSL', to: 'LHR' }] });
    expect(found?.born).toEqual(new Date('1990-05-01'));
    expect((found as unknown as { createdAt: Date }).createdAt).toBeInstanceOf(Date);

    const doc = await PassengerModel.findOne({ email: 'ada@example.com' });
    doc!.bags = 2;
    doc!.tags.push('late');
    await doc!.save();
    expect(await PassengerModel.findOne({ email: 'ada@example.com' }).lean()).toMatchObject({ bags: 2, tags: ['vip', 'late'] });

    await PassengerModel.updateOne({ _id: created._id }, { $inc: { bags: 1 } });
    const updated = await PassengerModel.findOneAndUpdate({ _id: created._id }, { $set: { seat: '1A' } }, { returnDocument: 'after' }).lean();
    expect(updated).toMatchObject({ bags: 3, seat: '1A' });

    await PassengerModel.deleteOne({ _id: created._id });
    expect(await PassengerModel.countDocuments()).toBe(0);
  });

  it('surfaces duplicate keys as MongoServerError 11000 with keyValue', async () => {
    await PassengerModel.create({ email: 'dup@example.com', name: 'One', flight: 'BF1' });
    await expect(PassengerModel.create({ email: 'dup@example.com', name: 'Two', flight: 'BF1' })).rejects.toMatchObject({
      code: 11000,
      keyValue: { email: 'dup@example.com' },
    });
  });

  it('enforces the partial compound unique index only for assigned seats', async () => {
    await PassengerModel.create([
      { email: 'a@x', name: 'A', flight: 'BF2' },
      { email: 'b@x', name: 'B', flight: 'BF2' },
      { email: 'c@x', name: 'C', flight: 'BF2', seat: '2C' },
    ]);
    await expect(PassengerModel.create({ email: 'd@x', name: 'D', flight: 'BF2', seat: '2C' })).rejects.toMatchObject({
      code: 11000,
      keyPattern: { flight: 1, seat: 1 },
    });
  });

  it('queries with sort, skip, limit, select, distinct, aggregate and countDocuments', async () => {
    await PassengerModel.insertMany(Array.from({ length: 30 }, (_, i) => ({ email: `p${i}@x`, name: `P${String(i).padStart(2, '0')}`, flight: i % 2 ? 'BF3' : 'BF4', bags: i })));
    const page = await PassengerModel.find({ flight: 'BF3' }).sort({ bags: -1 }).skip(1).limit(3).select({ name: 1, _id: 0 }).lean();
    expect(page).toEqual([{ name: 'P27' }, { name: 'P25' }, { name: 'P23' }]);
    expect(await PassengerModel.countDocuments({ bags: { $gte: 10 } })).toBe(20);
    expect((await PassengerModel.distinct('flight')).sort()).toEqual(['BF3', 'BF4']);
    const grouped = await PassengerModel.aggregate<{ _id: string; bags: number }>([{ $group: { _id: '$flight', bags: { $sum: '$bags' } } }, { $sort: { _id: 1 } }]);
    expect(grouped).toEqual([
      { _id: 'BF3', bags: 225 },
      { _id: 'BF4', bags: 210 },
    ]);
  });

  it('upserts through findOneAndUpdate with setDefaultsOnInsert', async () => {
    const upserted = await PassengerModel.findOneAndUpdate(
      { email: 'new@x' },
      { $set: { name: 'New', flight: 'BF5' } },
      { upsert: true, returnDocument: 'after', setDefaultsOnInsert: true },
    ).lean();
    expect(upserted).toMatchObject({ email: 'new@x', name: 'New', flight: 'BF5', bags: 0 });
  });

  it('keeps indexes in sync with syncIndexes', async () => {
    await connection.db!.collection('passengers').createIndex({ stray: 1 });
    const dropped = await PassengerModel.syncIndexes();
    expect(dropped).toEqual(['stray_1']);
    expect((await PassengerModel.listIndexes()).map((index) => index.name)).not.toContain('stray_1');
  });
});
