import { type FormEvent, type ReactNode, useState } from 'react';
import type { AdminCatalogWire } from '../../../../src/base/contract/admin-catalog';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { Field, FormOutcome } from '../../ui/form-fields';
import { type ModelDoc, type RouteDoc, routeIdOf, routesOfModel } from './catalog-routes';

const PATH = '/api/admin/v1/catalog';
const SIZES = ['1K', '2K', '4K'] as const;

type Changed = (next: AdminCatalogWire) => void;

const dollars = (micros: number | undefined) => (micros === undefined ? '' : String(micros / 1_000_000));
const micros = (text: string) => Math.round(Number(text) * 1_000_000);
const whole = (text: string) => (text.trim() === '' ? undefined : Number(text));

function Text(props: {
  label: string;
  value: string;
  set: (v: string) => void;
  type?: string;
  required?: boolean;
}) {
  return (
    <Field
      label={props.label}
      control={(id) => (
        <input
          id={id}
          type={props.type ?? 'text'}
          step={props.type === 'number' ? 'any' : undefined}
          required={props.required}
          autoComplete="off"
          value={props.value}
          onChange={(event) => props.set(event.target.value)}
        />
      )}
    />
  );
}

function Choice(props: { label: string; value: string; set: (v: string) => void; options: string[][] }) {
  return (
    <Field
      label={props.label}
      control={(id) => (
        <select id={id} value={props.value} onChange={(event) => props.set(event.target.value)}>
          {props.options.map(([value, words]) => (
            <option key={value} value={value}>
              {words}
            </option>
          ))}
        </select>
      )}
    />
  );
}

/** One form: its fields, a confirmed submit, and the outcome. */
function EditForm(props: {
  label: string;
  button: string;
  children: ReactNode;
  onSubmit: () => Promise<string> | undefined;
}) {
  const state = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const work = props.onSubmit;
    void state.run(async () => {
      const done = await work();
      return done;
    });
  };
  return (
    <form className="stack" onSubmit={submit} aria-label={props.label}>
      <h3>{props.label}</h3>
      <div className="admin-filters">
        {props.children}
        <button type="submit" className="button primary" disabled={state.busy}>
          {state.busy ? 'Saving…' : props.button}
        </button>
      </div>
      <FormOutcome error={state.error} done={state.done} />
    </form>
  );
}

/** Sends one model's new settings (PATCH), after the operator confirms. */
async function patchModel(
  catalog: AdminCatalogWire,
  model: ModelDoc,
  fields: Record<string, unknown>,
  words: string,
  onChanged: Changed,
): Promise<string> {
  if (!window.confirm(`${words}? Every node uses it within seconds.`)) return 'Nothing changed.';
  const next = await api.patch<AdminCatalogWire>(`${PATH}/models/${encodeURIComponent(model.id)}`, {
    expected_version: catalog.version,
    ...fields,
  });
  onChanged(next);
  return `${words}: version ${next.version} is in force.`;
}

/** The settings of one route of a model, for the PATCH that changes them. */
function withRoute(model: ModelDoc, index: number, change: (route: RouteDoc) => RouteDoc) {
  if (index === 0) {
    const own = change(model);
    return { price: own.price ?? null, capacity: own.capacity ?? null, lifecycle: own.lifecycle ?? null };
  }
  return { fallbacks: (model.fallbacks ?? []).map((route, i) => (i === index - 1 ? change(route) : route)) };
}

/** The route with its price per image from the form (dollars), other price fields kept. */
function priced(r: RouteDoc, price: Record<string, string>): RouteDoc {
  const perImage = Object.fromEntries(
    SIZES.filter((s) => (price[s] ?? '') !== '').map((s) => [s, micros(price[s] ?? '0')]),
  );
  return { ...r, price: { ...r.price, perImage } };
}

/** The route with the form's limits (none set: learned from refusals). */
function limited(r: RouteDoc, limits: Record<string, string>): RouteDoc {
  const capacity = Object.fromEntries(
    Object.entries(limits).flatMap(([name, text]) =>
      whole(text) === undefined ? [] : [[name, whole(text)]],
    ),
  );
  const { capacity: _, ...rest } = r;
  return Object.keys(capacity).length > 0 ? { ...rest, capacity } : rest;
}

/** The route with the form's shutdown day (empty: none), other lifecycle fields kept. */
function dated(r: RouteDoc, shutdown: string): RouteDoc {
  const { shutdown: _, ...lifecycle } = r.lifecycle ?? {};
  const next = shutdown.trim() ? { ...lifecycle, shutdown: shutdown.trim() } : lifecycle;
  const { lifecycle: __, ...rest } = r;
  return Object.keys(next).length > 0 ? { ...rest, lifecycle: next } : rest;
}

/** The form's fields for a route: its price per image in dollars, its limits, its shutdown day. */
function fieldsOf(route: RouteDoc | undefined) {
  const c = route?.capacity ?? {};
  return {
    price: Object.fromEntries(SIZES.map((s) => [s, dollars(route?.price?.perImage?.[s])])) as Record<
      string,
      string
    >,
    limits: {
      maxInFlight: String(c.maxInFlight ?? ''),
      requestsPerMinute: String(c.requestsPerMinute ?? ''),
      imagesPerMinute: String(c.imagesPerMinute ?? ''),
    },
    shutdown: route?.lifecycle?.shutdown ?? '',
  };
}

/** Change a route's price per image, its limits, or its lifecycle. */
export function RouteEditor({
  catalog,
  models,
  onChanged,
}: {
  catalog: AdminCatalogWire;
  models: ModelDoc[];
  onChanged: Changed;
}) {
  const [key, setKey] = useState(`${models[0]?.id ?? ''}:0`);
  const [modelId, indexText] = key.split(':');
  const model = models.find((m) => m.id === modelId) ?? models[0];
  const index = Number(indexText ?? 0);
  const route = model ? routesOfModel(model)[index] : undefined;
  const [fields, setFields] = useState(() => fieldsOf(route));
  const { price, limits, shutdown } = fields;
  const setPrice = (next: Record<string, string>) => setFields({ ...fields, price: next });
  const setLimits = (next: typeof limits) => setFields({ ...fields, limits: next });
  const setShutdown = (next: string) => setFields({ ...fields, shutdown: next });
  const choose = (next: string) => {
    setKey(next);
    const [id, i] = next.split(':');
    const chosen = models.find((m) => m.id === id);
    setFields(fieldsOf(chosen ? routesOfModel(chosen)[Number(i)] : undefined));
  };
  if (!model || !route) return null;
  const options = models.flatMap((m) =>
    routesOfModel(m).map((r, i) => [
      `${m.id}:${i}`,
      `${m.id}: ${routeIdOf(r)}${i === 0 ? '' : ` (fallback ${i})`}`,
    ]),
  );
  const name = `${model.id}'s route ${routeIdOf(route)}`;
  const send = (change: (r: RouteDoc) => RouteDoc, words: string) =>
    patchModel(catalog, model, withRoute(model, index, change), words, onChanged);
  return (
    <div className="stack">
      <Choice label="Route to change" value={key} set={choose} options={options} />
      <EditForm
        label="Price per image"
        button="Save price"
        onSubmit={() => send((r) => priced(r, price), `Change the price of ${name}`)}
      >
        {SIZES.map((size) => (
          <Text
            key={size}
            label={`${size} (USD)`}
            type="number"
            value={price[size] ?? ''}
            set={(v) => setPrice({ ...price, [size]: v })}
          />
        ))}
      </EditForm>
      <EditForm
        label="Capacity limits per key"
        button="Save limits"
        onSubmit={() => send((r) => limited(r, limits), `Change the limits of ${name}`)}
      >
        <Text
          label="Calls at once"
          type="number"
          value={limits.maxInFlight}
          set={(v) => setLimits({ ...limits, maxInFlight: v })}
        />
        <Text
          label="Calls per minute"
          type="number"
          value={limits.requestsPerMinute}
          set={(v) => setLimits({ ...limits, requestsPerMinute: v })}
        />
        <Text
          label="Images per minute"
          type="number"
          value={limits.imagesPerMinute}
          set={(v) => setLimits({ ...limits, imagesPerMinute: v })}
        />
      </EditForm>
      <EditForm
        label="Lifecycle"
        button="Save lifecycle"
        onSubmit={() => send((r) => dated(r, shutdown), `Change the lifecycle of ${name}`)}
      >
        <Text label="Shutdown day (YYYY-MM-DD)" value={shutdown} set={setShutdown} />
      </EditForm>
    </div>
  );
}

/** Adds a fallback route at the end of a model's list. */
export function AddFallback({
  catalog,
  models,
  onChanged,
}: {
  catalog: AdminCatalogWire;
  models: ModelDoc[];
  onChanged: Changed;
}) {
  const [modelId, setModelId] = useState(models[0]?.id ?? '');
  const [provider, setProvider] = useState('');
  const [upstreamModel, setUpstreamModel] = useState('');
  const model = models.find((m) => m.id === modelId);
  return (
    <EditForm
      label="Add a fallback route"
      button="Add fallback"
      onSubmit={() => {
        if (!model) return undefined;
        const fallbacks = [
          ...(model.fallbacks ?? []),
          { provider: provider.trim(), upstreamModel: upstreamModel.trim() },
        ];
        return patchModel(
          catalog,
          model,
          { fallbacks },
          `Add ${provider}/${upstreamModel} as a fallback of ${model.id}`,
          onChanged,
        );
      }}
    >
      <Choice label="Model" value={modelId} set={setModelId} options={models.map((m) => [m.id, m.id])} />
      <Text label="Provider" value={provider} set={setProvider} required />
      <Text label="Upstream model" value={upstreamModel} set={setUpstreamModel} required />
    </EditForm>
  );
}

/** The whole document as JSON, replaced at once (the loader's messages shown when refused). */
export function JsonEditor({ catalog, onChanged }: { catalog: AdminCatalogWire; onChanged: Changed }) {
  const [text, setText] = useState(() => JSON.stringify(catalog.document, null, 2));
  const state = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void state.run(async () => {
      let document: unknown;
      try {
        document = JSON.parse(text);
      } catch (error) {
        throw new Error(`Not valid JSON: ${(error as Error).message}`);
      }
      if (!window.confirm('Replace the whole catalog? Every node uses it within seconds.'))
        return 'Nothing changed.';
      const next = await api.put<AdminCatalogWire>(PATH, { expected_version: catalog.version, document });
      onChanged(next);
      return `Version ${next.version} is in force.`;
    });
  };
  return (
    <form className="stack" onSubmit={submit} aria-label="Edit the catalog as JSON">
      <Field
        label={`The catalog document (version ${catalog.version})`}
        control={(id) => (
          <textarea
            id={id}
            rows={16}
            spellCheck={false}
            className="mono"
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        )}
      />
      <div className="row">
        <button type="submit" className="button primary" disabled={state.busy}>
          {state.busy ? 'Saving…' : 'Save the document'}
        </button>
        <button
          type="button"
          className="button"
          onClick={() => setText(JSON.stringify(catalog.document, null, 2))}
        >
          Reset to the version in force
        </button>
      </div>
      {state.error && (
        <pre className="error-text" role="alert">
          {state.error}
        </pre>
      )}
      <FormOutcome done={state.done} />
    </form>
  );
}
