import { useCallback, useEffect, useState } from 'react';
import type { AdminCatalogVersionWire, AdminCatalogWire } from '../../../../src/base/contract/admin-catalog';
import type { ProviderKeysWire } from '../../../../src/base/contract/admin-provider-keys';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { FormOutcome } from '../../ui/form-fields';
import { AdminTable, HeadRow, LoadState, when } from './admin-kit';
import { AddFallback, JsonEditor, RouteEditor } from './catalog-forms';
import { CatalogRoutes, type ModelDoc } from './catalog-routes';
import { KeyPools } from './key-pools';

const SOURCE_WORDS: Record<AdminCatalogVersionWire['source'], string> = {
  file: 'the catalog file',
  console: 'the console',
  api: 'the admin API',
  cli: 'the CLI',
};

/**
 * The catalog at run time: every model's routes with prices, limits and lifecycle, a Test button per
 * route, forms for a price, limits, lifecycle and a fallback route, the whole document as JSON, the
 * versions, and the pools of upstream keys. Every change is a new version, in force on every node
 * within seconds, and in the audit log.
 */
export default function CatalogPage() {
  const [catalog, setCatalog] = useState<AdminCatalogWire>();
  const [versions, setVersions] = useState<AdminCatalogVersionWire[]>([]);
  const [keys, setKeys] = useState<ProviderKeysWire>();
  const load = useAction();
  const run = load.run;
  const refresh = useCallback(
    () =>
      run(async () => {
        const [doc, history, pools] = await Promise.all([
          api.get<AdminCatalogWire>('/api/admin/v1/catalog'),
          api.get<{ items: AdminCatalogVersionWire[] }>('/api/admin/v1/catalog/versions?limit=10'),
          api.get<ProviderKeysWire>('/api/admin/v1/provider-keys'),
        ]);
        setCatalog(doc);
        setVersions(history.items);
        setKeys(pools);
      }),
    [run],
  );
  useEffect(() => void refresh(), [refresh]);
  const changed = (next: AdminCatalogWire) => {
    setCatalog(next);
    void refresh();
  };
  const rollback = useAction();
  /** Stores an older version's document as the next version, after a confirmation. */
  const putBack = (version: number) => {
    if (
      !catalog ||
      !window.confirm(`Put back version ${version} as a new version? Every node uses it within seconds.`)
    )
      return;
    void rollback.run(async () => {
      const old = await api.get<AdminCatalogWire>(`/api/admin/v1/catalog/versions/${version}`);
      const next = await api.put<AdminCatalogWire>('/api/admin/v1/catalog', {
        expected_version: catalog.version,
        document: old.document,
      });
      changed(next);
      return `Version ${version} put back as version ${next.version}.`;
    });
  };
  const models = ((catalog?.document.models as ModelDoc[] | undefined) ?? []).filter(
    (m) => typeof m?.id === 'string',
  );

  return (
    <div className="admin-page">
      <section className="panel stack" aria-labelledby="catalog-heading">
        <div className="row between">
          <h2 id="catalog-heading">Catalog</h2>
          <button type="button" className="button small" onClick={() => void refresh()}>
            Refresh
          </button>
        </div>
        <LoadState error={load.error} loading={load.busy && !catalog} />
        {catalog && (
          <p className="small muted">
            Version {catalog.version}, from {SOURCE_WORDS[catalog.source]} ({catalog.created_by}),{' '}
            {when(catalog.created_at)}. A change here is a new version, used by every node within seconds,
            without a restart; a restart with a changed catalog file brings the file in again (the last change
            wins).
          </p>
        )}
        {catalog && <CatalogRoutes models={models} />}
      </section>
      {catalog && (
        <section className="panel stack" aria-labelledby="catalog-edit-heading">
          <h2 id="catalog-edit-heading">Change a route</h2>
          <RouteEditor catalog={catalog} models={models} onChanged={changed} />
          <AddFallback catalog={catalog} models={models} onChanged={changed} />
        </section>
      )}
      {catalog && (
        <details className="panel stack">
          <summary>Edit the whole catalog as JSON</summary>
          <JsonEditor catalog={catalog} onChanged={changed} />
        </details>
      )}
      {versions.length > 0 && (
        <section className="panel stack" aria-labelledby="versions-heading">
          <h2 id="versions-heading">Versions</h2>
          <AdminTable
            caption="The last versions"
            head={<HeadRow columns={['Version', 'From', 'By', 'When', 'Actions']} />}
          >
            {versions.map((version) => (
              <tr key={version.version}>
                <td>{version.version}</td>
                <td>{SOURCE_WORDS[version.source]}</td>
                <td>{version.created_by}</td>
                <td>{when(version.created_at)}</td>
                <td>
                  {catalog && version.version !== catalog.version ? (
                    <button
                      type="button"
                      className="button small"
                      disabled={rollback.busy}
                      onClick={() => putBack(version.version)}
                    >
                      Put back version {version.version}
                    </button>
                  ) : (
                    'in force'
                  )}
                </td>
              </tr>
            ))}
          </AdminTable>
          <FormOutcome error={rollback.error} done={rollback.done} />
        </section>
      )}
      <KeyPools state={keys} onChanged={() => void refresh()} />
    </div>
  );
}
