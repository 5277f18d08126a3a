import type { AuthChecker } from 'type-graphql';
import { requireScope, type Scope } from '../auth';
import type { GraphQLContext } from '../graphql-kit/context';

/**
 * `@Authorized(scope)` on a field demands that scope. Throwing (instead of returning false) lets
 * the error carry 401 or 403 and the RFC 6750 challenge header.
 */
export const scopeAuthChecker: AuthChecker<GraphQLContext, Scope> = ({ context }, scopes) => {
  for (const scope of scopes) requireScope(context.principal, scope);
  return true;
};
