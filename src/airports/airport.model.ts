import { Schema, type Connection, type Model } from 'mongoose';

/** An airport as stored. Local times of flights are derived from `timezone`. */
export interface AirportDocument {
  icao: string;
  iata: string;
  city: string;
  /** Country name, e.g. `Italy`. */
  country: string;
  /** The parenthesised part shown after the country name, e.g. `IT`; may be empty. */
  countryTag: string;
  /** IANA time zone, e.g. `Europe/Rome`. */
  timezone: string;
}

export const airportSchema = new Schema<AirportDocument>(
  {
    icao: { type: String, required: true, unique: true },
    iata: { type: String, required: true },
    city: { type: String, required: true },
    country: { type: String, required: true },
    countryTag: { type: String, default: '' },
    timezone: { type: String, required: true },
  },
  { collection: 'airports', versionKey: false, timestamps: true },
);
airportSchema.index({ iata: 1 });

export type AirportModel = Model<AirportDocument>;

export function airportModel(connection: Connection): AirportModel {
  return connection.model<AirportDocument>('Airport', airportSchema);
}
