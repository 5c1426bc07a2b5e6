import { useEffect, useState } from 'react';
import type { Allowance } from '../../../../src/base/contract/usage';
import { api } from '../../lib/api';
import type { Catalog, UsageReport } from '../../lib/types';

/**
 * What the account's tier policy leaves (GET /web/api/account/usage's `allowance`): null when no
 * policy applies, undefined until read (or when it cannot be read: the server still decides).
 * Read again whenever `refreshKey` changes (a submit, a task finishing).
 */
export function useAllowance(refreshKey: unknown): Allowance | null | undefined {
  const [allowance, setAllowance] = useState<Allowance | null>();
  useEffect(() => {
    void refreshKey;
    let live = true;
    api.get<UsageReport>('/web/api/account/usage').then(
      (report) => live && setAllowance(report.allowance),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [refreshKey]);
  return allowance;
}

/** Images the account may still ask for at once (undefined: no limit), from every quota that applies. */
export function imagesLeft(allowance: Allowance | null | undefined): number | undefined {
  const limits = [
    allowance?.images_per_day?.remaining,
    allowance?.images_per_month?.remaining,
    allowance?.tasks_in_flight?.remaining,
  ].filter((left): left is number => left !== undefined);
  return limits.length === 0 ? undefined : Math.min(...limits);
}

/**
 * The catalog as this account may use it: only the models its tier allows, and no more images per
 * request than it has left (at least one, so the form keeps its shape; Generate says when none are).
 */
export function catalogForAllowance(catalog: Catalog, allowance: Allowance | null | undefined): Catalog {
  const allowed = allowance?.models;
  const left = imagesLeft(allowance);
  const models = catalog.models
    .filter((model) => !allowed || allowed.includes(model.id))
    .map((model) =>
      left === undefined ? model : { ...model, maxCount: Math.max(1, Math.min(model.maxCount, left)) },
    );
  return { ...catalog, models: models.length > 0 ? models : catalog.models };
}
