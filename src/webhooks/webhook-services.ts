import type { ChangeEventModel } from '../changes/change-event.model';
import type { WebhooksConfig } from '../config';
import { WebhookDeliveryService } from './webhook-delivery.service';
import type { WebhookDeliveryModel } from './webhook-delivery.model';
import { WebhookEndpointService } from './webhook-endpoint.service';
import type { WebhookEndpointModel } from './webhook-endpoint.model';

/** What the GraphQL resolvers of webhooks call. */
export interface WebhookServices {
  endpoints: WebhookEndpointService;
  deliveries: WebhookDeliveryService;
  /** Subscribes to changes made through the API (endpoints changed, deliveries replayed or resumed): the worker looks again. */
  onChanged(listener: () => void): () => void;
}

export interface WebhookServicesDeps {
  changeEvents: ChangeEventModel;
  webhookEndpoints: WebhookEndpointModel;
  webhookDeliveries: WebhookDeliveryModel;
}

export function createWebhookServices(models: WebhookServicesDeps, config: WebhooksConfig): WebhookServices {
  const listeners = new Set<() => void>();
  const onChanged = () => listeners.forEach((listener) => listener());
  return {
    endpoints: new WebhookEndpointService({ ...models, config, onChanged }),
    deliveries: new WebhookDeliveryService({ ...models, onChanged }),
    onChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
