import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Scope } from '../auth';
import type { GraphQLContext } from '../graphql-kit/context';
import { Resource, ResourceInput } from './resource.type';
import { LIST_ROWS, listComplexity } from '../graphql-kit/complexity';
import { resourceGlobalId } from '../shared/global-id';
import type { ResourceData } from './resource.service';

@Resolver(() => Resource)
export class ResourceResolver {
  @Authorized(Scope.TimelineRead)
  @Query(() => [Resource], { complexity: listComplexity(LIST_ROWS.resources), description: 'Every resource (timeline row), by id.' })
  resources(@Ctx() ctx: GraphQLContext) {
    return ctx.services.resources.list();
  }

  @Authorized(Scope.FlightsWrite)
  @Mutation(() => Resource, { description: 'Creates a resource (no id) or creates or replaces the one with the given id.' })
  upsertResource(@Arg('input', () => ResourceInput, { description: 'The resource; with an id, it replaces the one with that id.' }) input: ResourceInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.resources.upsert(input);
  }

  @FieldResolver(() => ID, { description: 'Unique across every type (Relay’s Global Object Identification), e.g. "Resource:3"; treat it as opaque. The number is resourceId.' })
  id(@Root() resource: ResourceData): string {
    return resourceGlobalId(resource.id);
  }

  @FieldResolver(() => Int, { description: 'The resource number, unique among resources (FullCalendar’s resourceId; Flight.resourceId and ResourceInput.id).' })
  resourceId(@Root() resource: ResourceData): number {
    return resource.id;
  }
}
