import { authenticationRequired, insufficientScope } from './bearer-errors';
import type { Principal } from './principal';
import type { Scope } from './scopes';

/**
 * Demands a principal holding `scope`: 401 with a bare Bearer challenge when the request carried no
 * token, 403 insufficient_scope (naming the scope) when the token lacks it. Returns the principal.
 */
export function requireScope(principal: Principal | undefined, scope: Scope): Principal {
  if (!principal) throw authenticationRequired();
  if (!principal.scopes.has(scope)) throw insufficientScope(scope);
  return principal;
}
