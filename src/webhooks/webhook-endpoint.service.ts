import { randomUUID } from 'node:crypto';
import type { ChangeEventType } from '../changes/change-event';
import type { WebhooksConfig } from '../config';
import { conflict, notFound } from '../errors';
import { DeliveryStatus, type WebhookDeliveryModel } from './webhook-delivery.model';
import type { WebhookEndpointDocument, WebhookEndpointModel } from './webhook-endpoint.model';
import { checkEndpointChanges, type EndpointChanges } from './webhook-endpoint.rules';
import { newWebhookSecret } from './webhook-signature';

/** How long the secret before a rotation still signs deliveries, unless revoked at once. */
export const SECRET_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** An endpoint as the API shows it: never its secrets. */
export interface WebhookEndpointData {
  id: string;
  url: string;
  description: string | null;
  eventTypes: ChangeEventType[];
  flightIds: number[] | null;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  lastSuccessAt: Date | null;
  failingSince: Date | null;
  previousSecretExpiresAt: Date | null;
}

/** What creation and rotation answer: the only moments the secret is shown. */
export interface WebhookEndpointWithSecret {
  endpoint: WebhookEndpointData;
  secret: string;
}

export interface WebhookEndpointServiceDeps {
  webhookEndpoints: WebhookEndpointModel;
  webhookDeliveries: WebhookDeliveryModel;
  config: WebhooksConfig;
  /** An endpoint changed, or deliveries became due (resumed), through this process: its worker looks again at once. */
  onChanged: () => void;
}

export function toEndpointData(doc: WebhookEndpointDocument): WebhookEndpointData {
  const { _id, secret: _secret, previousSecret: _previous, previousSecretExpiresAt, ...rest } = doc;
  const graceActive = previousSecretExpiresAt && previousSecretExpiresAt.getTime() > Date.now();
  return { id: _id, ...rest, previousSecretExpiresAt: graceActive ? previousSecretExpiresAt : null };
}

/** Creating, changing and removing webhook endpoints (scope webhooks:manage). */
export class WebhookEndpointService {
  constructor(private readonly deps: WebhookEndpointServiceDeps) {}

  async list(): Promise<WebhookEndpointData[]> {
    const docs = await this.deps.webhookEndpoints.find().sort({ createdAt: 1, _id: 1 }).limit(this.deps.config.maxEndpoints).lean<WebhookEndpointDocument[]>().exec();
    return docs.map(toEndpointData);
  }

  async get(id: string): Promise<WebhookEndpointData | null> {
    const doc = await this.deps.webhookEndpoints.findById(id).lean<WebhookEndpointDocument>().exec();
    return doc ? toEndpointData(doc) : null;
  }

  async create(changes: EndpointChanges & { url: string }, subject: string): Promise<WebhookEndpointWithSecret> {
    const { config } = this.deps;
    const checked = await checkEndpointChanges(
      { url: changes.url, eventTypes: changes.eventTypes ?? null, flightIds: changes.flightIds ?? null, description: changes.description ?? null },
      config,
    );
    // Bounds the work of dispatching each event (one check per endpoint); concurrent creations may pass it together.
    if ((await this.deps.webhookEndpoints.countDocuments().exec()) >= config.maxEndpoints) {
      throw conflict(`There are already ${config.maxEndpoints} webhook endpoints (WEBHOOK_MAX_ENDPOINTS): delete one first`);
    }
    const now = new Date();
    const secret = newWebhookSecret();
    const doc: WebhookEndpointDocument = {
      _id: `ep_${randomUUID().replace(/-/g, '')}`,
      url: checked.url!,
      description: checked.description ?? null,
      eventTypes: checked.eventTypes!,
      flightIds: checked.flightIds ?? null,
      secret,
      previousSecret: null,
      previousSecretExpiresAt: null,
      enabled: changes.enabled ?? true,
      disabledReason: changes.enabled === false ? `created disabled by ${subject}` : null,
      disabledAt: changes.enabled === false ? now : null,
      createdBy: subject,
      createdAt: now,
      updatedAt: now,
      lastSuccessAt: null,
      failingSince: null,
    };
    await this.deps.webhookEndpoints.collection.insertOne(doc as never);
    return { endpoint: toEndpointData(doc), secret };
  }

  /**
   * Changes the fields given. Disabling pauses the endpoint's pending deliveries; enabling clears
   * the reason, gives the endpoint a fresh failure window and resumes them, each with the whole
   * retry schedule ahead of it.
   */
  async update(id: string, changes: EndpointChanges, subject: string): Promise<WebhookEndpointData> {
    const existing = await this.require(id);
    const checked = await checkEndpointChanges(changes, this.deps.config);
    const now = new Date();
    const set: Partial<WebhookEndpointDocument> = { ...checked, updatedAt: now };
    const disabling = checked.enabled === false && existing.enabled;
    const enabling = checked.enabled === true && !existing.enabled;
    if (disabling) Object.assign(set, { disabledReason: `disabled by ${subject}`, disabledAt: now });
    if (enabling) Object.assign(set, { disabledReason: null, disabledAt: null, failingSince: null });
    const updated = await this.deps.webhookEndpoints.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' }).lean<WebhookEndpointDocument>().exec();
    if (!updated) throw endpointNotFound(id);
    if (disabling) await pauseDeliveries(this.deps.webhookDeliveries, id);
    if (enabling) {
      await this.deps.webhookDeliveries
        .updateMany({ endpointId: id, status: DeliveryStatus.Paused }, { $set: { status: DeliveryStatus.Pending, nextAttemptAt: now, retriesUsed: 0 } })
        .exec();
    }
    this.deps.onChanged();
    return toEndpointData(updated);
  }

  /** Removes the endpoint, its secrets and its whole delivery log. */
  async delete(id: string): Promise<boolean> {
    const { deletedCount } = await this.deps.webhookEndpoints.deleteOne({ _id: id }).exec();
    if (deletedCount === 0) throw endpointNotFound(id);
    // A delivery the dispatcher adds meanwhile is dropped by the worker, which finds no endpoint.
    await this.deps.webhookDeliveries.deleteMany({ endpointId: id }).exec();
    this.deps.onChanged();
    return true;
  }

  /**
   * A new secret, shown once. The old one keeps signing (a second signature in the same header)
   * for SECRET_ROTATION_GRACE_MS so receivers can switch without losing a delivery, unless
   * `revokePrevious` (a leaked secret) ends it now.
   */
  async rotateSecret(id: string, revokePrevious: boolean): Promise<WebhookEndpointWithSecret> {
    const existing = await this.require(id);
    const secret = newWebhookSecret();
    const now = new Date();
    const grace = revokePrevious ? { previousSecret: null, previousSecretExpiresAt: null } : { previousSecret: existing.secret, previousSecretExpiresAt: new Date(now.getTime() + SECRET_ROTATION_GRACE_MS) };
    const updated = await this.deps.webhookEndpoints
      .findOneAndUpdate({ _id: id }, { $set: { secret, ...grace, updatedAt: now } }, { returnDocument: 'after' })
      .lean<WebhookEndpointDocument>()
      .exec();
    if (!updated) throw endpointNotFound(id);
    this.deps.onChanged();
    return { endpoint: toEndpointData(updated), secret };
  }

  private async require(id: string): Promise<WebhookEndpointDocument> {
    const doc = await this.deps.webhookEndpoints.findById(id).lean<WebhookEndpointDocument>().exec();
    if (!doc) throw endpointNotFound(id);
    return doc;
  }
}

export function endpointNotFound(id: string) {
  return notFound(`Webhook endpoint ${id} does not exist`);
}

/** Holds an endpoint's pending deliveries until it is enabled again. */
export async function pauseDeliveries(deliveries: WebhookDeliveryModel, endpointId: string): Promise<void> {
  await deliveries.updateMany({ endpointId, status: DeliveryStatus.Pending }, { $set: { status: DeliveryStatus.Paused, nextAttemptAt: null } }).exec();
}
