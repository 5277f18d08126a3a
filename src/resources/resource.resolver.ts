import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Scope } from '../auth';
import type { GraphQLContext } from '../context';
import { Resource, ResourceInput } from './resource.type';
import { LIST_ROWS, listComplexity } from '../graphql/complexity';

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
}
