import type { Scope } from './scopes';

/** Who made a request, as established by a verified bearer token; audit records copy these fields. */
export interface Principal {
  /** The token's `sub` claim. */
  subject: string;
  /** Scopes granted by the token (`scope` or `scp`); unknown scopes are kept, never trusted for anything. */
  scopes: ReadonlySet<Scope | string>;
  /** The token's `jti` claim, when it has one. */
  tokenId?: string;
}
