import type { ActionRequest, AtelierClient, GenerateRequest } from '../../client/atelier-client.js';
import type { SpendPrice } from '../spend-confirmation.js';

const images = (count: number) => (count === 1 ? '1 image' : `${count} images`);

/** "4 images at 4K, high quality, on pro": what a generate request makes, as the person reads it. */
function describe(request: GenerateRequest, count: number): string {
  const details = [
    ...(request.imageSize ? [`at ${request.imageSize}`] : []),
    ...(request.quality ? [`${request.quality} quality`] : []),
  ].join(', ');
  const what = request.parentId ? `${images(count)} refining ${request.parentId}` : images(count);
  return `${what}${details ? ` ${details}` : ''} on ${request.model ?? 'the default model'}`;
}

/** A generate request's price: the API's quote (POST /api/v1/quotes), its most. */
export async function generatePrice(
  client: AtelierClient,
  request: GenerateRequest,
  signal: AbortSignal,
): Promise<SpendPrice> {
  const { quote_id: _quoteId, ...body } = request;
  const quote = await client.quote(body, { signal });
  return { what: describe(request, quote.count), maxMicros: quote.max_cost_micros };
}

/**
 * An action's price: its route's price (GET /api/v1/models, `actions`) at the size that costs most ×
 * its count; unknown where the route has none (reroll runs the work's own model).
 */
export async function actionPrice(
  client: AtelierClient,
  id: string,
  request: ActionRequest,
  signal: AbortSignal,
): Promise<SpendPrice> {
  const { actions = [] } = await client.models({ signal });
  const routes = actions.filter((route) => route.action === request.action);
  const route = request.model === undefined ? routes[0] : routes.find((r) => r.model === request.model);
  const perImage = Object.values(route?.price?.maxPerImage ?? {}).filter((m) => typeof m === 'number');
  const count = request.count ?? 1;
  const what = `${images(count)} by ${request.action.replace('_', ' ')} of ${id}`;
  return { what, maxMicros: perImage.length > 0 ? count * Math.max(...perImage) : null };
}
