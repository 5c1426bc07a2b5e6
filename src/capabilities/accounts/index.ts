// The accounts capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/accounts/ import from this file only (src/architecture.test.ts holds it).
export { ACCOUNT_CHANGES_CHANNEL, createAccountChanges } from './account-changes.js';
export type { AccountDirectory, DirectoryEntry } from './account-directory.js';
export { createAccountDirectory, generateOneTimePassword } from './account-directory.js';
export type { Account } from './accounts-repository.js';
export { createAccountsRepository } from './accounts-repository.js';
export type { AccountsService, UpstreamKeyResolver } from './accounts-service.js';
export { createAccountsService } from './accounts-service.js';
export type { ApiKey } from './api-keys-repository.js';
export { apiKeyFields } from './api-keys-repository.js';
export { demoBanner, ensureDemoAccount, writeDemoCredentials } from './demo-account.js';
export type { OAuthGrant, OAuthGrants, OAuthRefusal, OAuthTokens } from './oauth-grants.js';
export { createOAuthGrants, OAUTH_ACCESS_PREFIX, OAUTH_SCOPE } from './oauth-grants.js';
export type { OAuthRateWindows } from './oauth-rate-windows.js';
export { createPasswordHashing } from './password-hashing.js';
export type { KeyAnswer, PooledKey, ProviderKeyPool, RecheckPolicy } from './provider-key-pool.js';
export { createProviderKeyPool } from './provider-key-pool.js';
export type { ProviderKeyStore, ProviderKeyView } from './provider-keys.js';
export { createProviderKeyStore } from './provider-keys.js';
export type { SpendConfirmations } from './spend-confirmations.js';
export { createSpendConfirmations } from './spend-confirmations.js';
export type { UpstreamAccess } from './upstream-access.js';
export { createUpstreamAccess } from './upstream-access.js';
export { bindLegacyUpstreamKeys } from './upstream-key-seals.js';
