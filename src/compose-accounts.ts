import {
  bindLegacyUpstreamKeys,
  createAccountChanges,
  createAccountDirectory,
  createAccountsRepository,
  createAccountsService,
  createOAuthGrants,
  createPasswordHashing,
  createSpendConfirmations,
  createUpstreamAccess,
} from './capabilities/accounts/index.js';
import type { CatalogParts } from './compose-catalog.js';
import type { CoreResources } from './core-resources.js';
import type { KeyPools } from './key-pools.js';

/** Accounts, their keys and sign-ins, and what the API and the console read of them. */
export function buildAccounts(
  resources: CoreResources,
  { catalog, providers, keyPools }: Pick<CatalogParts, 'catalog' | 'providers'> & { keyPools: KeyPools },
) {
  const { db, clock, ids, secrets, config } = resources;
  const accountChanges = createAccountChanges(db, resources.listener);
  const accountsRepository = createAccountsRepository({ db, clock, ids, changes: accountChanges });
  const accounts = createAccountsService({
    keyCache: { changes: accountChanges, clock },
    accounts: accountsRepository,
    secrets,
    deploymentKeys: providers.deploymentKeys,
    pooledKey: keyPools.pool.anyKey,
    passwords: createPasswordHashing({ options: config.resourceCaps.passwordHashes }),
  });
  return {
    accounts,
    accountsRepository,
    /** How this process hears that accounts changed elsewhere (what its API-key cache trusts). */
    accountChanges,
    /** has_key and which providers take a key (the API's account status, the website's account page). */
    upstreamAccess: createUpstreamAccess({
      catalog,
      providers,
      keys: accounts.keyResolver,
      pooledKey: keyPools.pool.anyKey,
      ownKeyProviders: accounts.upstreamKeyProviders,
    }),
    /** When MCP tools ask the person before spending (the API's account status, the account page). */
    spendConfirmations: createSpendConfirmations({ db, clock }),
    /** The operator console's list, search and one-time passwords of accounts. */
    accountDirectory: createAccountDirectory({ db }),
    /**
     * OAuth clients, consents and grants for sign-in of hosted MCP clients, issuing tokens for one
     * resource (the app's /mcp URL; the app decides whether its base URL may issue at all).
     */
    oauthGrants: (resource: string) =>
      createOAuthGrants({
        db,
        clock,
        secrets,
        resource,
        standing: async (accountId) => (await accounts.sessionStanding(accountId))?.account,
      }),
  };
}

/** Secrets sealed before seals were bound to their row (issue 25) are bound once, at start. */
export async function bindSealsToRows(
  { db, secrets, logger }: CoreResources,
  webhooks: { bindLegacySecrets(): Promise<number> },
): Promise<void> {
  const boundSeals = (await bindLegacyUpstreamKeys(db, secrets)) + (await webhooks.bindLegacySecrets());
  if (boundSeals > 0) logger.info({ count: boundSeals }, 'bound sealed secrets to their rows');
}
