import request from 'supertest';
import {
  CreateWebhookEndpointDocument,
  DeleteFlightDocument,
  UpdateFlightDocument,
  WebhookDeliveriesDocument,
  type CreateWebhookEndpointMutationVariables,
  type WebhookDeliveriesQuery,
} from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import type { TestApp } from '../helpers/test-app';
import { createFlight } from '../helpers/timeline-fixtures';
import type { WebhookReceiver } from './webhook-receiver';

/** Test settings: the local receiver allowed, retries in milliseconds, sweeps often. */
export const FAST_WEBHOOKS = {
  WEBHOOK_ALLOWED_PRIVATE_NETWORKS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE_MS: '100,200',
  // Generous: on a loaded machine a short limit expired after the receiver got the request (a
  // duplicate delivery, an attempt logged without its status). The time-out test sets its own.
  WEBHOOK_ATTEMPT_TIMEOUT_MS: '30000',
  WEBHOOK_SWEEP_INTERVAL_MS: '200',
};

export type Delivery = WebhookDeliveriesQuery['webhookDeliveries']['deliveries'][number];

type EndpointInput = Partial<CreateWebhookEndpointMutationVariables['input']>;

/** Creates an endpoint for `path` on the receiver, which then verifies its deliveries with the secret. */
export async function subscribe(testApp: TestApp, receiver: WebhookReceiver, path: string, input: EndpointInput = {}) {
  const { body } = await testApp.graphql(CreateWebhookEndpointDocument, {
    input: { url: receiver.url(path), eventTypes: null, flightIds: null, description: null, enabled: null, ...input },
  });
  if (body.errors || !body.data) throw new Error(JSON.stringify(body.errors));
  const { endpoint, secret } = body.data.createWebhookEndpoint;
  receiver.expect(path, secret);
  return { id: endpoint.id, secret };
}

/** The endpoint's whole delivery log (newest event first). */
export async function deliveriesOf(testApp: TestApp, endpointId: string): Promise<Delivery[]> {
  const { body } = await testApp.graphql(WebhookDeliveriesDocument, { endpointId, eventId: null, status: null, first: 100, after: null });
  if (body.errors || !body.data) throw new Error(JSON.stringify(body.errors));
  return body.data.webhookDeliveries.deliveries;
}

export const FLIGHT = { resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: '2026-12-21T09:00:00Z', arrivalAt: '2026-12-21T12:00:00Z' } as const;

export function newFlight(testApp: TestApp, flightNumber = 'IFL100'): Promise<number> {
  return createFlight(testApp, { ...FLIGHT, flightNumber });
}

export async function moveFlight(testApp: TestApp, id: number): Promise<void> {
  const input = {
    flightNumber: undefined, resourceId: undefined, departureIcao: undefined, arrivalIcao: undefined,
    backgroundColor: undefined, textColor: undefined, borderColor: undefined,
    departureAt: '2026-12-22T09:00:00Z', arrivalAt: '2026-12-22T12:00:00Z',
  };
  const { body } = await testApp.graphql(UpdateFlightDocument, { id, input });
  if (body.errors) throw new Error(JSON.stringify(body.errors));
}

export async function deleteFlight(testApp: TestApp, id: number): Promise<void> {
  const { body } = await testApp.graphql(DeleteFlightDocument, { id });
  if (body.errors) throw new Error(JSON.stringify(body.errors));
}

/** A push through the legacy REST route, as the handler systems send them. */
export async function pushPassengers(testApp: TestApp, flightId: number, changes: { created?: number[]; modified?: number[]; deleted?: number[] }): Promise<void> {
  const token = await testApp.token(['passengers:write'], 'handler');
  const response = await request(testApp.app)
    .post(`/api/broker/v0/flight/${flightId}/passenger`)
    .set('Authorization', `Bearer ${token}`)
    .send({
      created: (changes.created ?? []).map((id) => passengerRecord(id)),
      modified: (changes.modified ?? []).map((id) => passengerRecord(id, { surname: 'Bianchi' })),
      deleted: changes.deleted ?? [],
    });
  if (response.status !== 200) throw new Error(`push answered ${response.status}: ${JSON.stringify(response.body)}`);
}

/** The change events of a flight as stored, in sequence order. */
export async function eventsOf(testApp: TestApp, flightId: number) {
  return testApp.database.connection
    .db!.collection<{ _id: string; seq: number; type: string; webhooksDispatched: boolean }>('change_events')
    .find({ flightId, skip: { $ne: true } })
    .sort({ seq: 1 })
    .toArray();
}

/** Removes every endpoint and delivery (between tests sharing an app). */
export async function forgetWebhooks(testApp: TestApp): Promise<void> {
  const db = testApp.database.connection.db!;
  await db.collection('webhook_endpoints').deleteMany({});
  await db.collection('webhook_deliveries').deleteMany({});
}
