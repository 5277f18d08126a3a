export { requireScope } from './authorize';
export { authenticationRequired } from './bearer-errors';
export { describeDevToken, prepareDevelopmentAuth } from './dev-token';
export type { Principal } from './principal';
export { createRequestAuthenticator, type CredentialsRequest, type RequestAuthenticator } from './request-principal';
export { ALL_SCOPES, Scope } from './scopes';
export { mintToken, type TokenClaims } from './token-issuer';
export { createTokenVerifier, type TokenVerifier, type TokenVerifierOptions } from './token-verifier';
