import type { ComplexityEstimator } from 'graphql-query-complexity';
import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Scope } from '../auth';
import type { GraphQLContext } from '../graphql-kit/context';
import { listComplexity } from '../graphql-kit/complexity';
import type { DeliveryStatus } from './webhook-delivery.model';
import { MAX_DELIVERY_PAGE } from './webhook-delivery.service';
import type { EndpointChanges } from './webhook-endpoint.rules';
import { CreateWebhookEndpointInput, UpdateWebhookEndpointInput } from './webhook.input';
import { WebhookDelivery, WebhookDeliveryPage, WebhookDeliveryStatus, WebhookEndpoint, WebhookEndpointSecret } from './webhook.type';

/** The endpoint count the cost estimate assumes (WEBHOOK_MAX_ENDPOINTS' default). */
const ENDPOINT_ROWS = 100;
const DEFAULT_PAGE = 20;

/** A page costs its selection once per row it may hold. */
const deliveryPageComplexity: ComplexityEstimator = ({ args, childComplexity }) => {
  const first = typeof args.first === 'number' ? Math.min(Math.max(args.first, 1), MAX_DELIVERY_PAGE) : DEFAULT_PAGE;
  return 1 + Math.max(1, childComplexity) * first;
};

/** GraphQL hands over class instances with nulls for "not given"; the service wants plain, explicit changes. */
function endpointChanges(input: CreateWebhookEndpointInput | UpdateWebhookEndpointInput): EndpointChanges {
  const changes: EndpointChanges = {};
  if (input.url !== undefined && input.url !== null) changes.url = input.url;
  if (input.eventTypes !== undefined) changes.eventTypes = input.eventTypes === null ? null : [...input.eventTypes];
  if (input.flightIds !== undefined) changes.flightIds = input.flightIds === null ? null : [...input.flightIds];
  if (input.description !== undefined) changes.description = input.description;
  if (input.enabled !== undefined && input.enabled !== null) changes.enabled = input.enabled;
  return changes;
}

@Resolver()
export class WebhookResolver {
  @Authorized(Scope.WebhooksManage)
  @Query(() => [WebhookEndpoint], { complexity: listComplexity(ENDPOINT_ROWS), description: 'Every webhook endpoint, oldest first (scope webhooks:manage).' })
  webhookEndpoints(@Ctx() ctx: GraphQLContext) {
    return ctx.services.webhooks.endpoints.list();
  }

  @Authorized(Scope.WebhooksManage)
  @Query(() => WebhookEndpoint, { nullable: true, description: 'One webhook endpoint; null when there is none (scope webhooks:manage).' })
  webhookEndpoint(@Arg('id', () => ID, { description: 'The endpoint’s id (ep_…).' }) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.webhooks.endpoints.get(id);
  }

  @Authorized(Scope.WebhooksManage)
  @Query(() => WebhookDeliveryPage, { complexity: deliveryPageComplexity, description: 'The delivery log, newest event first, a page at a time (scope webhooks:manage).' })
  webhookDeliveries(
    @Arg('endpointId', () => ID, { nullable: true, description: 'Only this endpoint’s deliveries.' }) endpointId: string | null,
    @Arg('eventId', () => ID, { nullable: true, description: 'Only the deliveries of this event (webhook-id).' }) eventId: string | null,
    @Arg('status', () => WebhookDeliveryStatus, { nullable: true, description: 'Only deliveries in this status.' }) status: DeliveryStatus | null,
    @Arg('first', () => Int, { nullable: true, defaultValue: DEFAULT_PAGE, description: `Deliveries on the page, 1 to ${MAX_DELIVERY_PAGE}.` }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: 'The previous page’s nextCursor.' }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.webhooks.deliveries.list({ endpointId, eventId, status, first: first ?? DEFAULT_PAGE, after });
  }

  @Authorized(Scope.WebhooksManage)
  @Query(() => WebhookDelivery, { nullable: true, description: 'One delivery; null when there is none (scope webhooks:manage).' })
  webhookDelivery(@Arg('id', () => ID, { description: 'The delivery’s id (dlv_…).' }) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.webhooks.deliveries.get(id);
  }

  @Authorized(Scope.WebhooksManage)
  @Mutation(() => WebhookEndpointSecret, { description: 'Creates a webhook endpoint and answers its signing secret, this once (scope webhooks:manage).' })
  createWebhookEndpoint(@Arg('input', () => CreateWebhookEndpointInput, { description: 'The new endpoint.' }) input: CreateWebhookEndpointInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.webhooks.endpoints.create({ ...endpointChanges(input), url: input.url }, ctx.principal!.subject);
  }

  @Authorized(Scope.WebhooksManage)
  @Mutation(() => WebhookEndpoint, { description: 'Changes a webhook endpoint: URL, event types, flight filter, description, enabled (scope webhooks:manage).' })
  updateWebhookEndpoint(@Arg('id', () => ID, { description: 'The endpoint to change (ep_…).' }) id: string, @Arg('input', () => UpdateWebhookEndpointInput, { description: 'The fields to change; those left out stay.' }) input: UpdateWebhookEndpointInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.webhooks.endpoints.update(id, endpointChanges(input), ctx.principal!.subject);
  }

  @Authorized(Scope.WebhooksManage)
  @Mutation(() => Boolean, { description: 'Deletes a webhook endpoint with its secret and its delivery log (scope webhooks:manage).' })
  deleteWebhookEndpoint(@Arg('id', () => ID, { description: 'The endpoint to delete (ep_…).' }) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.webhooks.endpoints.delete(id);
  }

  @Authorized(Scope.WebhooksManage)
  @Mutation(() => WebhookEndpointSecret, {
    description: 'Gives the endpoint a new secret, answered this once. The old one keeps signing alongside for 24 hours unless revokePrevious (scope webhooks:manage).',
  })
  rotateWebhookEndpointSecret(
    @Arg('id', () => ID, { description: 'The endpoint whose secret to replace (ep_…).' }) id: string,
    @Arg('revokePrevious', () => Boolean, { nullable: true, defaultValue: false, description: 'Stop signing with the old secret at once (it leaked).' }) revokePrevious: boolean | null,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.webhooks.endpoints.rotateSecret(id, revokePrevious ?? false);
  }

  @Authorized(Scope.WebhooksManage)
  @Mutation(() => WebhookDelivery, { description: 'Sends a delivery again now, with a fresh retry schedule, whatever its status (scope webhooks:manage).' })
  replayWebhookDelivery(@Arg('id', () => ID, { description: 'The delivery to send again (dlv_…).' }) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.webhooks.deliveries.replay(id);
  }

  @Authorized(Scope.WebhooksManage)
  @Mutation(() => WebhookDelivery, {
    description: 'Sends a change event (still in the feed) to an endpoint, whether or not its filters chose it: replays their delivery, or creates it (scope webhooks:manage).',
  })
  replayWebhookEvent(@Arg('eventId', () => ID, { description: 'The event (webhook-id).' }) eventId: string, @Arg('endpointId', () => ID, { description: 'The endpoint to send it to (ep_…).' }) endpointId: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.webhooks.deliveries.replayEvent(eventId, endpointId);
  }
}
