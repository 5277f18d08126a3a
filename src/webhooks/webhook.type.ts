import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { ChangeEventType } from '../changes/change-event';
import { DeliveryStatus } from './webhook-delivery.model';

/** GraphQL names of the change event types; the payload's `type` carries the dotted value. */
export const WebhookEventType = {
  FLIGHT_CREATED: ChangeEventType.FlightCreated,
  FLIGHT_UPDATED: ChangeEventType.FlightUpdated,
  FLIGHT_DELETED: ChangeEventType.FlightDeleted,
  PASSENGER_LIST_UPDATED: ChangeEventType.PassengerListUpdated,
} as const;

registerEnumType(WebhookEventType, {
  name: 'WebhookEventType',
  description: 'A kind of change a webhook endpoint can be sent; the payload’s `type` is the dotted name (flight.created…).',
  valuesConfig: {
    FLIGHT_CREATED: { description: '`flight.created`: a flight was created.' },
    FLIGHT_UPDATED: { description: '`flight.updated`: a flight changed.' },
    FLIGHT_DELETED: { description: '`flight.deleted`: a flight and its passenger list were deleted.' },
    PASSENGER_LIST_UPDATED: { description: '`passenger_list.updated`: a push changed a passenger list (version, ids created/modified/deleted, count).' },
  },
});

export const WebhookDeliveryStatus = {
  PENDING: DeliveryStatus.Pending,
  DELIVERED: DeliveryStatus.Delivered,
  FAILED: DeliveryStatus.Failed,
  PAUSED: DeliveryStatus.Paused,
} as const;

registerEnumType(WebhookDeliveryStatus, {
  name: 'WebhookDeliveryStatus',
  description: 'Where a delivery stands.',
  valuesConfig: {
    PENDING: { description: 'Waiting for its next attempt, or being attempted (inFlight).' },
    DELIVERED: { description: 'The endpoint answered 2xx.' },
    FAILED: { description: 'Every attempt of the retry schedule failed; replayWebhookDelivery sends it again.' },
    PAUSED: { description: 'Its endpoint is disabled; enabling the endpoint resumes it.' },
  },
});

@ObjectType({ description: 'A receiver of signed webhooks (Standard Webhooks). Its secret is shown only by createWebhookEndpoint and rotateWebhookEndpointSecret.' })
export class WebhookEndpoint {
  @Field(() => ID, { description: 'The endpoint’s id (ep_…).' })
  id: string;

  @Field({ description: 'Where deliveries are POSTed.' })
  url: string;

  @Field(() => String, { nullable: true, description: 'Free text for operators.' })
  description: string | null;

  @Field(() => [WebhookEventType], { description: 'The event types sent to it.' })
  eventTypes: string[];

  @Field(() => [Int], { nullable: true, description: 'Only events of these flights (flightId); null: every flight.' })
  flightIds: number[] | null;

  @Field({ description: 'False: nothing is sent; its pending deliveries are PAUSED.' })
  enabled: boolean;

  @Field(() => String, { nullable: true, description: 'Why it was disabled (by whom, or the failures that disabled it); null while enabled.' })
  disabledReason: string | null;

  @Field(() => Date, { nullable: true, description: 'When it was disabled; null while enabled.' })
  disabledAt: Date | null;

  @Field({ description: 'Token subject that created it.' })
  createdBy: string;

  @Field({ description: 'When the endpoint was created.' })
  createdAt: Date;

  @Field({ description: 'When the endpoint was last changed (its URL, filters, state or secret).' })
  updatedAt: Date;

  @Field(() => Date, { nullable: true, description: 'Last 2xx answer.' })
  lastSuccessAt: Date | null;

  @Field(() => Date, { nullable: true, description: 'First failed attempt since the last success; null while it answers. Failing for WEBHOOK_DISABLE_AFTER_MS disables it.' })
  failingSince: Date | null;

  @Field(() => Date, { nullable: true, description: 'Until when deliveries also carry a signature with the secret before the last rotation; null when they do not.' })
  previousSecretExpiresAt: Date | null;
}

@ObjectType({ description: 'An endpoint and its signing secret, shown this once: store it now.' })
export class WebhookEndpointSecret {
  @Field(() => WebhookEndpoint, { description: 'The endpoint created or rotated.' })
  endpoint: WebhookEndpoint;

  @Field({ description: 'Standard Webhooks secret (whsec_ + base64): give it to the receiver’s verification library.' })
  secret: string;
}

@ObjectType({ description: 'One attempt of a delivery.' })
export class WebhookAttempt {
  @Field({ description: 'When it started.' })
  at: Date;

  @Field(() => Int, { description: 'How long it took, in milliseconds.' })
  durationMs: number;

  @Field(() => Int, { nullable: true, description: 'The HTTP status answered; null when none was (network error, time-out, refused target).' })
  statusCode: number | null;

  @Field(() => String, { nullable: true, description: 'What went wrong; null on success.' })
  error: string | null;
}

@ObjectType({ description: 'One event sent to one endpoint: the delivery queue and its log.' })
export class WebhookDelivery {
  @Field(() => ID, { description: 'The delivery’s id (dlv_…).' })
  id: string;

  @Field(() => ID, { description: 'The endpoint it is sent to.' })
  endpointId: string;

  @Field(() => ID, { description: 'The change event’s id: the webhook-id header of every attempt, the same for every endpoint.' })
  eventId: string;

  @Field(() => WebhookEventType, { description: 'What happened (the payload’s type).' })
  eventType: string;

  @Field(() => Int, { description: 'The flight the event is about (its flightId).' })
  flightId: number;

  @Field(() => WebhookDeliveryStatus, { description: 'Where the delivery stands.' })
  status: string;

  @Field({ description: 'An attempt is running now.' })
  inFlight: boolean;

  @Field(() => Int, { description: 'Attempts made so far, replays included.' })
  attempts: number;

  @Field(() => Date, { nullable: true, description: 'When the next attempt is due (PENDING only).' })
  nextAttemptAt: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the last attempt started; null before the first.' })
  lastAttemptAt: Date | null;

  @Field(() => Int, { nullable: true, description: 'The HTTP status of the last attempt, if one was answered.' })
  lastStatusCode: number | null;

  @Field(() => String, { nullable: true, description: 'What went wrong in the last attempt; null after a success.' })
  lastError: string | null;

  @Field(() => Date, { nullable: true, description: 'When an attempt was answered with a 2xx; null until then.' })
  deliveredAt: Date | null;

  @Field({ description: 'When the delivery was queued (the event was dispatched to the endpoint).' })
  createdAt: Date;

  @Field(() => [WebhookAttempt], { description: 'The most recent attempts (at most 10), oldest first.' })
  recentAttempts: WebhookAttempt[];

  @Field({ description: 'The exact JSON body sent.' })
  payload: string;
}

@ObjectType({ description: 'A page of the delivery log, newest event first.' })
export class WebhookDeliveryPage {
  @Field(() => [WebhookDelivery], { description: 'The deliveries of this page.' })
  deliveries: WebhookDelivery[];

  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next page; null on the last one.' })
  nextCursor: string | null;
}
