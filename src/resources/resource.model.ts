import { Schema, type Connection, type Model } from 'mongoose';

/** Default colours of the entries on a resource's row (CSS colour names). */
export interface ColourSet {
  background: string;
  text: string;
  border: string;
}

/** Colours of an entry whose resource is missing (it cannot be, short of a deleted row). */
export const FALLBACK_COLOURS: ColourSet = { background: 'gray', text: 'white', border: 'gray' };

/** The row a timeline entry belongs to, typically one aircraft. */
export interface ResourceDocument {
  resourceId: number;
  title: string;
  registration: string;
  colours: ColourSet;
}

export const colourSetSchema = new Schema<ColourSet>(
  {
    background: { type: String, required: true },
    text: { type: String, required: true },
    border: { type: String, required: true },
  },
  { _id: false },
);

export const resourceSchema = new Schema<ResourceDocument>(
  {
    resourceId: { type: Number, required: true, unique: true },
    title: { type: String, required: true },
    registration: { type: String, required: true },
    colours: { type: colourSetSchema, required: true },
  },
  { collection: 'resources', versionKey: false, timestamps: true },
);

export type ResourceModel = Model<ResourceDocument>;

export function resourceModel(connection: Connection): ResourceModel {
  return connection.model<ResourceDocument>('Resource', resourceSchema);
}
