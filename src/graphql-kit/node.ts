import { isInterfaceType, type GraphQLSchema } from 'graphql';
import { Arg, Ctx, Field, ID, InterfaceType, Query, Resolver } from 'type-graphql';
import { Scope, authenticationRequired, requireScope } from '../auth';
import type { GraphQLContext } from './context';
import { parseGlobalId } from '../shared/global-id';


type NodeTypeName = 'Flight' | 'Resource' | 'Passenger';
/**
 * The type name `node` resolved for each object it returned, so the interface can tell its
 * implementations apart. Kept aside rather than copied onto the object: stored records (e.g.
 * passenger subdocuments) expose their fields through getters that a copy would lose.
 */
const nodeTypes = new WeakMap<object, NodeTypeName>();

function resolveNodeType(value: object): NodeTypeName | undefined {
  return nodeTypes.get(value);
}

/**
 * type-graphql (2.0.0-rc.4) wraps every resolveType in an async function; graphql-jit (0.8.x, which
 * runs documents seen twice) needs it synchronous (zalando-incubator/graphql-jit issue 69, open) and
 * otherwise fails every `node` query from the second on. So the built schema gets the plain function back.
 */
export function withSyncNodeResolveType(schema: GraphQLSchema): GraphQLSchema {
  const node = schema.getType('Node');
  if (isInterfaceType(node)) node.resolveType = resolveNodeType;
  return schema;
}

@InterfaceType({
  description: 'An object with a globally unique id (Relay’s Global Object Identification): refetch any of them with `node(id:)`.',
  resolveType: resolveNodeType,
})
export abstract class Node {
  @Field(() => ID, { description: 'Unique across every type; treat it as opaque.' })
  id: string;
}

function tagged<T extends object>(type: NodeTypeName, value: T | null | undefined): (T & Node) | null {
  if (!value) return null;
  nodeTypes.set(value, type);
  return value as unknown as T & Node;
}

@Resolver()
export class NodeResolver {
  /*
   * Scopes follow the type the id names (timeline:read for flights and resources, passengers:read
   * for passengers), so they are checked here rather than by @Authorized. An id that is malformed
   * or names nothing answers null, as Relay expects of a refetch; a token is still required.
   */
  @Query(() => Node, {
    nullable: true,
    description:
      'Any object by its global id (Relay’s refetch): a Flight or Resource needs scope timeline:read, a Passenger passengers:read. Null when the id is malformed or names nothing.',
  })
  async node(@Arg('id', () => ID, { description: 'A global id, as read from an `id` field.' }) id: string, @Ctx() ctx: GraphQLContext): Promise<Node | null> {
    const parsed = parseGlobalId(id);
    if (!parsed) {
      if (!ctx.principal) throw authenticationRequired();
      return null;
    }
    switch (parsed.type) {
      case 'Flight':
        requireScope(ctx.principal, Scope.TimelineRead);
        return tagged('Flight', await ctx.services.flights.get(parsed.id));
      case 'Resource':
        requireScope(ctx.principal, Scope.TimelineRead);
        return tagged('Resource', await ctx.loaders.resourceById.load(parsed.id));
      case 'Passenger': {
        requireScope(ctx.principal, Scope.PassengersRead);
        const records = await ctx.loaders.passengersByFlight.load(parsed.flightId);
        return tagged('Passenger', records.find((record) => record.id === parsed.recordId));
      }
    }
  }
}
