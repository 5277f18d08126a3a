import { Field, InputType, Int } from 'type-graphql';
import type { ChangeEventType } from '../changes/change-event';
import { WebhookEventType } from './webhook.type';

@InputType({ description: 'A new webhook endpoint. Its URL is checked now: https in production, and an address the operator allowed.' })
export class CreateWebhookEndpointInput {
  @Field({ description: 'Absolute http(s) URL the deliveries are POSTed to (https only in production); no credentials, no fragment.' })
  url: string;

  @Field(() => [WebhookEventType], { nullable: true, description: 'The event types to send; left out or null: all of them.' })
  eventTypes?: ChangeEventType[] | null;

  @Field(() => [Int], { nullable: true, description: 'Only events of these flights (at most 1,000); left out or null: every flight.' })
  flightIds?: number[] | null;

  @Field(() => String, { nullable: true, description: 'Free text for operators (at most 500 characters).' })
  description?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'False creates it disabled; default true.' })
  enabled?: boolean | null;
}

@InputType({ description: 'Changes to a webhook endpoint: absent fields stay as they are.' })
export class UpdateWebhookEndpointInput {
  @Field(() => String, { nullable: true, description: 'A new URL, checked as on creation.' })
  url?: string | null;

  @Field(() => [WebhookEventType], { nullable: true, description: 'The event types to send; null: all of them.' })
  eventTypes?: ChangeEventType[] | null;

  @Field(() => [Int], { nullable: true, description: 'Only events of these flights; null: every flight.' })
  flightIds?: number[] | null;

  @Field(() => String, { nullable: true, description: 'Free text; null or empty removes it.' })
  description?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'False disables it (its pending deliveries pause); true enables it again (they resume, with a fresh retry schedule).' })
  enabled?: boolean | null;
}
