import { readFile } from 'node:fs/promises';
import type { Kysely } from 'kysely';
import { isPostgresUrl, openDatabase } from '../../src/infra/store/database.js';

/**
 * The forms a secret takes if something encoded it before writing it down: plain, base64 and
 * base64url (at each of the three byte alignments, so a secret inside a longer encoded value is
 * found too), hex (either case), URL- and form-encoded.
 */
export function encodingsOf(secret: string): Array<{ encoding: string; text: string }> {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = [
    { encoding: 'plain', text: secret },
    { encoding: 'hex', text: bytes.toString('hex') },
    { encoding: 'HEX', text: bytes.toString('hex').toUpperCase() },
    { encoding: 'url-encoded', text: encodeURIComponent(secret) },
    { encoding: 'form-encoded', text: new URLSearchParams({ s: secret }).toString().slice(2) },
  ];
  for (const variant of ['base64', 'base64url'] as const) {
    for (let offset = 0; offset < 3; offset++) {
      const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString(variant);
      // Only the characters made of the secret's own bits: the first and last may mix in neighbours.
      const first = Math.ceil((offset * 8) / 6);
      const end = Math.floor(((offset + bytes.length) * 8) / 6);
      forms.push({ encoding: `${variant}@${offset}`, text: encoded.slice(first, end) });
    }
  }
  return forms;
}

/** Which of `secrets` (by name) appear in `haystack` in any encoding, as "name (encoding) in where". */
export function findSecrets(haystack: string, secrets: Record<string, string>, where: string): string[] {
  const found: string[] = [];
  for (const [name, secret] of Object.entries(secrets)) {
    for (const { encoding, text } of encodingsOf(secret)) {
      if (text.length >= 8 && haystack.includes(text)) found.push(`${name} (${encoding}) in ${where}`);
    }
  }
  return found;
}

/** The raw bytes of a SQLite database and its -wal/-shm files (missing ones are skipped), as text. */
export async function sqliteFilesText(path: string): Promise<string> {
  const parts: string[] = [];
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    const bytes = await readFile(file).catch(() => undefined);
    if (bytes) parts.push(bytes.toString('latin1'));
  }
  return parts.join('\n');
}

/** A dump of the database: every table's rows, one JSON line per row (like sqlite3's .dump, on either store). */
export async function dumpDatabase(
  databaseUrl: string,
): Promise<{ text: string; tables: number; rows: number }> {
  const db = (await openDatabase(databaseUrl)) as unknown as Kysely<Record<string, Record<string, unknown>>>;
  try {
    const lines: string[] = [];
    const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
    for (const table of tables) {
      const rows = await db.selectFrom(table.name).selectAll().execute();
      for (const row of rows) lines.push(`${table.name}\t${JSON.stringify(row)}`);
    }
    return { text: lines.join('\n'), tables: tables.length, rows: lines.length };
  } finally {
    await db.destroy();
  }
}

/** Where the database of a config lives, for the file scan: the SQLite path, or undefined on PostgreSQL. */
export function sqlitePathOf(databaseUrl: string): string | undefined {
  return isPostgresUrl(databaseUrl) ? undefined : databaseUrl;
}
