import { Schema, type Connection, type Model } from 'mongoose';

/** One named integer sequence; `_id` is the sequence name (for example `flight`). */
export interface CounterDocument {
  _id: string;
  seq: number;
}

export const counterSchema = new Schema<CounterDocument>(
  { _id: { type: String, required: true }, seq: { type: Number, required: true } },
  { versionKey: false, collection: 'counters' },
);

export type CounterModel = Model<CounterDocument>;

export function counterModel(connection: Connection): CounterModel {
  return connection.model<CounterDocument>('Counter', counterSchema);
}

/**
 * The next value of a sequence: one atomic `$inc` with upsert, so concurrent creators on any
 * number of processes never receive the same id (counting documents would race).
 */
export async function nextSequence(counters: CounterModel, name: string): Promise<number> {
  const counter = await counters
    .findOneAndUpdate({ _id: name }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after', lean: true })
    .exec();
  return counter!.seq;
}

/** Moves a sequence forward so that it never hands out an id at or below `atLeast`. */
export async function advanceSequence(counters: CounterModel, name: string, atLeast: number): Promise<void> {
  await counters.updateOne({ _id: name }, { $max: { seq: atLeast } }, { upsert: true }).exec();
}
