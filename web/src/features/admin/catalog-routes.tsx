import { useState } from 'react';
import type { AdminRouteTestWire } from '../../../../src/base/contract/admin-catalog';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { FormOutcome } from '../../ui/form-fields';
import { AdminTable, HeadRow, usd } from './admin-kit';

/** A route as the catalog document writes it (the model's own, or one of its fallbacks). */
export interface RouteDoc {
  provider: string;
  upstreamModel: string;
  price?: { perImage?: Record<string, number>; perMillionTokens?: unknown; [k: string]: unknown };
  capacity?: { maxInFlight?: number; requestsPerMinute?: number; imagesPerMinute?: number };
  lifecycle?: { released?: string; deprecated?: string; shutdown?: string; replacement?: string };
}

/** A model as the catalog document writes it. */
export interface ModelDoc extends RouteDoc {
  id: string;
  displayName?: string;
  fallbacks?: RouteDoc[];
}

/** The model's routes in the order they are tried. */
export const routesOfModel = (model: ModelDoc): RouteDoc[] => [model, ...(model.fallbacks ?? [])];
export const routeIdOf = (route: RouteDoc) => `${route.provider}/${route.upstreamModel}`;
/** The routes with their place in the order (0: the model's own). */
const placed = (model: ModelDoc) => routesOfModel(model).map((route, index) => ({ route, index }));

function priceWords(route: RouteDoc): string {
  const per = route.price?.perImage;
  if (per)
    return ['1K', '2K', '4K']
      .map((size) => `${size} ${per[size] === undefined ? '—' : usd(per[size] ?? 0)}`)
      .join(' · ');
  if (route.price?.perMillionTokens) return 'per token';
  return 'no price';
}

function limitWords(route: RouteDoc): string {
  const c = route.capacity;
  if (!c) return 'learned';
  const parts = [
    c.maxInFlight === undefined ? undefined : `${c.maxInFlight} at once`,
    c.requestsPerMinute === undefined ? undefined : `${c.requestsPerMinute} calls/min`,
    c.imagesPerMinute === undefined ? undefined : `${c.imagesPerMinute} images/min`,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : 'learned';
}

function lifecycleWords(route: RouteDoc): string {
  const l = route.lifecycle;
  if (!l) return '—';
  if (l.shutdown) return `shuts down ${l.shutdown}${l.replacement ? ` (→ ${l.replacement})` : ''}`;
  if (l.deprecated) return `deprecated ${l.deprecated}`;
  return l.released ? `released ${l.released}` : '—';
}

/** The answer of a route's test, in words and with its preview. */
function TestAnswer({ answer }: { answer: AdminRouteTestWire }) {
  if (!answer.ok)
    return (
      <p className="error-text" role="status">
        {answer.route_id} failed after {answer.duration_ms} ms: {answer.error?.message}
        {answer.error?.cause ? ` (${answer.error.cause})` : ''}
      </p>
    );
  const image = answer.image;
  return (
    <div className="row" role="status">
      {image?.preview_url && (
        <img src={image.preview_url} alt={`What ${answer.route_id} answered`} width={64} height={64} />
      )}
      <p className="success-text">
        {answer.route_id} answered in {answer.duration_ms} ms: {image?.content_type ?? 'an image'}
        {image?.width ? `, ${image.width}×${image.height}` : ''}
        {answer.cost_usd === null ? '' : `, cost $${answer.cost_usd.toFixed(4)}`}.
      </p>
    </div>
  );
}

/** Every model's routes with their prices, limits and lifecycle; a Test button per route. */
export function CatalogRoutes({ models }: { models: ModelDoc[] }) {
  const test = useAction();
  const [answer, setAnswer] = useState<AdminRouteTestWire>();
  const run = (routeId: string) => {
    if (!window.confirm(`Send one real request through ${routeId}? It costs what one image costs there.`))
      return;
    setAnswer(undefined);
    void test.run(async () => {
      setAnswer(await api.post<AdminRouteTestWire>('/api/admin/v1/catalog/test', { route_id: routeId }));
    });
  };
  return (
    <>
      <AdminTable
        caption="Models and their routes"
        head={
          <HeadRow
            columns={['Model', 'Route', 'Tried', 'Price per image', 'Limits per key', 'Lifecycle', 'Test']}
          />
        }
      >
        {models.flatMap((model) =>
          placed(model).map(({ route, index }) => (
            <tr key={`${model.id}:${index}`} data-route={`${model.id}/${index}`}>
              <td>{index === 0 ? model.id : ''}</td>
              <td>
                <code>{routeIdOf(route)}</code>
              </td>
              <td>{index === 0 ? 'first' : `fallback ${index}`}</td>
              <td>{priceWords(route)}</td>
              <td>{limitWords(route)}</td>
              <td>{lifecycleWords(route)}</td>
              <td>
                <button
                  type="button"
                  className="button small"
                  disabled={test.busy}
                  aria-label={`Test ${routeIdOf(route)} of ${model.id}`}
                  onClick={() => run(routeIdOf(route))}
                >
                  Test
                </button>
              </td>
            </tr>
          )),
        )}
      </AdminTable>
      {test.busy && <p role="status">Testing…</p>}
      {answer && <TestAnswer answer={answer} />}
      <FormOutcome error={test.error} />
    </>
  );
}
