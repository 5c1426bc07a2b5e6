import { MAX_PRESETS, type Preset, type PresetSettings } from '../../base/contract/website/create.js';
import { Conflict, NotFound } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';

/**
 * The Create form's named presets, per account (the website's own table, migration 0034): kept on
 * the server so a preset saved on the laptop is there on the phone. A name is unique per account;
 * saving under an existing name replaces that preset.
 */
export function createPresets({ db, clock }: { db: Db; clock: Clock }) {
  return {
    /** The account's presets, by name. */
    async list(accountId: string): Promise<Preset[]> {
      const rows = await db
        .selectFrom('prompt_presets')
        .select(['name', 'settings_json', 'updated_at'])
        .where('account_id', '=', accountId)
        .orderBy('name')
        .execute();
      return rows.map((row) => ({
        ...(JSON.parse(row.settings_json) as PresetSettings),
        name: row.name,
        updatedAt: Number(row.updated_at),
      }));
    },

    /** Saves (or replaces) the preset `name`; a new one past MAX_PRESETS is a Conflict. */
    async save(accountId: string, name: string, settings: PresetSettings): Promise<Preset> {
      const updatedAt = clock.now();
      const settingsJson = JSON.stringify(settings);
      await db.transaction().execute(async (trx) => {
        const existing = await trx
          .selectFrom('prompt_presets')
          .select('name')
          .where('account_id', '=', accountId)
          .execute();
        if (!existing.some((row) => row.name === name) && existing.length >= MAX_PRESETS)
          throw new Conflict(`An account keeps at most ${MAX_PRESETS} presets: delete one first`);
        await trx
          .insertInto('prompt_presets')
          .values({ account_id: accountId, name, settings_json: settingsJson, updated_at: updatedAt })
          .onConflict((oc) =>
            oc
              .columns(['account_id', 'name'])
              .doUpdateSet({ settings_json: settingsJson, updated_at: updatedAt }),
          )
          .execute();
      });
      return { ...settings, name, updatedAt };
    },

    /** Deletes the preset `name` (NotFound when the account has none by that name). */
    async remove(accountId: string, name: string): Promise<void> {
      const result = await db
        .deleteFrom('prompt_presets')
        .where('account_id', '=', accountId)
        .where('name', '=', name)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) throw new NotFound(`No preset named "${name}"`);
    },
  };
}

export type Presets = ReturnType<typeof createPresets>;
