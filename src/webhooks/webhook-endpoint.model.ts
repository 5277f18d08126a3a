import { Schema, type Connection, type Model } from 'mongoose';
import type { ChangeEventType } from '../changes/change-event';

/** A receiver of webhooks (collection `webhook_endpoints`). */
export interface WebhookEndpointDocument {
  /** `ep_` + a random UUID. */
  _id: string;
  url: string;
  description: string | null;
  /** The event types sent to it (never empty). */
  eventTypes: ChangeEventType[];
  /** Only events of these flights; null: every flight. */
  flightIds: number[] | null;
  /** Standard Webhooks secret (`whsec_` + base64): shown once, at creation or rotation. */
  secret: string;
  /**
   * The secret before the last rotation: deliveries carry a signature with it too until
   * `previousSecretExpiresAt`, so a receiver can switch to the new secret without losing any.
   */
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  /** The token subject that created it. */
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  lastSuccessAt: Date | null;
  /** First failed attempt since the last success; null while the endpoint answers. */
  failingSince: Date | null;
}

export const webhookEndpointSchema = new Schema<WebhookEndpointDocument>(
  {
    _id: { type: String, required: true },
    url: { type: String, required: true },
    description: { type: String, default: null },
    eventTypes: { type: [String], required: true },
    flightIds: { type: [Number], default: null },
    secret: { type: String, required: true },
    previousSecret: { type: String, default: null },
    previousSecretExpiresAt: { type: Date, default: null },
    enabled: { type: Boolean, required: true },
    disabledReason: { type: String, default: null },
    disabledAt: { type: Date, default: null },
    createdBy: { type: String, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    lastSuccessAt: { type: Date, default: null },
    failingSince: { type: Date, default: null },
  },
  { collection: 'webhook_endpoints', versionKey: false },
);
webhookEndpointSchema.index({ enabled: 1 });
webhookEndpointSchema.index({ createdAt: 1 });

export type WebhookEndpointModel = Model<WebhookEndpointDocument>;

export function webhookEndpointModel(connection: Connection): WebhookEndpointModel {
  return connection.model<WebhookEndpointDocument>('WebhookEndpoint', webhookEndpointSchema);
}
