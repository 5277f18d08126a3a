import { Schema, type Connection, type Model } from 'mongoose';
import type { PendingChangeEvent } from '../changes/change-event';
import { pendingEventSchema } from '../changes/change-event.model';

/**
 * The longest flight the service accepts. The timeline's overlap query uses it as a lower bound on
 * departure, so the departure index bounds the scan on both sides.
 */
export const MAX_FLIGHT_DURATION_MS = 24 * 60 * 60 * 1000;

export interface FlightEndpoint {
  /** ICAO code of the airport. */
  icao: string;
  /** The instant, stored in UTC. */
  at: Date;
}

/** Per-flight colour overrides; an absent value falls back to the resource's default. */
export interface ColourOverrides {
  background?: string;
  text?: string;
  border?: string;
}

export interface FlightDocument {
  flightId: number;
  flightNumber: string;
  resourceId: number;
  departure: FlightEndpoint;
  arrival: FlightEndpoint;
  colours?: ColourOverrides;
  /** Events of changes committed to this flight and not yet published (see src/changes/change-publisher.ts). */
  outbox?: PendingChangeEvent[];
}

const endpointSchema = new Schema<FlightEndpoint>(
  { icao: { type: String, required: true }, at: { type: Date, required: true } },
  { _id: false },
);

export const flightSchema = new Schema<FlightDocument>(
  {
    flightId: { type: Number, required: true, unique: true },
    flightNumber: { type: String, required: true },
    resourceId: { type: Number, required: true },
    departure: { type: endpointSchema, required: true },
    arrival: { type: endpointSchema, required: true },
    colours: {
      type: new Schema<ColourOverrides>({ background: String, text: String, border: String }, { _id: false }),
      default: undefined,
    },
    outbox: { type: [pendingEventSchema], default: undefined },
  },
  { collection: 'flights', versionKey: false, timestamps: true },
);
// The timeline's range query: departure within [start - max duration, end), arrival after start.
flightSchema.index({ 'departure.at': 1 });
flightSchema.index({ resourceId: 1, 'departure.at': 1 });
// The outbox sweep's query: flights holding events older than a few seconds (rare, after a crash).
flightSchema.index({ 'outbox.at': 1 });

export type FlightModel = Model<FlightDocument>;

export function flightModel(connection: Connection): FlightModel {
  return connection.model<FlightDocument>('Flight', flightSchema);
}
