import { Misconfigured, UpstreamFailed, UpstreamKeyMissing } from '../../base/domain/errors.js';
import type { Account, UpstreamKeyResolver } from '../../capabilities/accounts/index.js';
import type { ProviderRegistry } from '../../capabilities/providers/index.js';
import type { GenerateRequest } from './generate-request.js';

/** The request's provider, configured, available and with a key for the account; refused otherwise. */
export async function readyProvider(
  context: { providers: ProviderRegistry; keys: UpstreamKeyResolver },
  account: Account,
  request: GenerateRequest,
) {
  const provider = context.providers.get(request.model.provider);
  if (!provider) throw new Misconfigured(`provider ${request.model.provider} is not configured`);
  if (provider.available && !provider.available()) {
    throw new UpstreamFailed(`Upstream provider ${provider.name} is unavailable; try again shortly`);
  }
  if (provider.requiresKey && !(await context.keys.resolve(account.id, provider.name))) {
    throw new UpstreamKeyMissing(
      `No upstream key for provider ${provider.name}: set one on the account page or with "atelier accounts set-upstream-key"`,
    );
  }
  return provider;
}
