import type { WebhookEndpointDocument, WebhookEndpointModel } from './webhook-endpoint.model';

/** How long a worker trusts an endpoint it read: a change made in another process shows within this. */
export const ENDPOINT_CACHE_MS = 1000;

/**
 * The endpoints a worker is delivering to, read once a second rather than once a delivery. Only
 * an enabled endpoint is served from the cache: a miss, a disabled endpoint or a deleted one is read
 * again before the worker pauses or drops a delivery for it, so a stale copy can never hold a
 * delivery back. Changes made through this process's API clear it at once.
 */
export class EndpointCache {
  private readonly entries = new Map<string, { endpoint: WebhookEndpointDocument; expiresAt: number }>();

  constructor(private readonly model: WebhookEndpointModel) {}

  async get(id: string): Promise<WebhookEndpointDocument | null> {
    const cached = this.entries.get(id);
    if (cached && cached.expiresAt > Date.now() && cached.endpoint.enabled) return cached.endpoint;
    const endpoint = await this.model.findById(id).lean<WebhookEndpointDocument>().exec();
    if (endpoint) this.entries.set(id, { endpoint, expiresAt: Date.now() + ENDPOINT_CACHE_MS });
    else this.entries.delete(id);
    return endpoint;
  }

  clear(): void {
    this.entries.clear();
  }
}
