import { randomBytes } from 'node:crypto';
import type {
  AdminAuditFilter,
  AuditAction,
  AuditSource,
  AuditTargetType,
} from '../../base/contract/admin-audit.js';
import { InvalidInput } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import type { AuditEventsTable } from '../../infra/store/schema/audit.js';
import { redact } from './redact.js';

/** Who made a change, from where. */
export interface AuditActor {
  /** The operator's e-mail, or `cli:<OS user>`. */
  label: string;
  accountId: string | null;
  source: AuditSource;
  /** The HTTP request's id; null for the CLI. */
  requestId: string | null;
}

/** One change, as its maker records it: the state before and after (secrets are redacted here). */
export interface AuditChange {
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** One recorded event. */
export interface AuditEvent {
  id: string;
  at: number;
  actor: string;
  actorAccountId: string | null;
  source: AuditSource;
  action: AuditAction;
  targetType: AuditTargetType;
  targetId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  requestId: string | null;
}

/** What `list` narrows to (the wire's filter). */
export type AuditFilter = Partial<Omit<AdminAuditFilter, 'from' | 'to'>> & { from?: number; to?: number };

/** Where a page ends: the last event's time and id. */
interface Position {
  at: number;
  id: string;
}

const cursorOf = (event: Position) => Buffer.from(`${event.at}:${event.id}`).toString('base64url');

function positionOf(cursor: string): Position {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^(\d{1,16}):(aud_[0-9a-z]+)$/.exec(text);
  if (!match) throw new InvalidInput('cursor is not one this API gave', 'cursor');
  return { at: Number(match[1]), id: match[2] as string };
}

/**
 * Ids that sort as the events were recorded: the time (base 36, padded), this process's count
 * (two events of one millisecond keep their order) and random hex (events of two nodes).
 */
function idMaker() {
  let count = 0;
  return (at: number) => {
    count = (count + 1) % 36 ** 4;
    return `aud_${at.toString(36).padStart(9, '0')}${count.toString(36).padStart(4, '0')}${randomBytes(6).toString('hex')}`;
  };
}

const parsed = (json: string | null) =>
  json === null ? null : (JSON.parse(json) as Record<string, unknown>);

function eventOf(row: AuditEventsTable): AuditEvent {
  return {
    id: row.id,
    at: Number(row.at),
    actor: row.actor,
    actorAccountId: row.actor_account_id,
    source: row.source,
    action: row.action as AuditAction,
    targetType: row.target_type,
    targetId: row.target_id,
    before: parsed(row.before_json),
    after: parsed(row.after_json),
    requestId: row.request_id,
  };
}

/** The events matching `filter`, newest first, older than `after` when given. */
function selectEvents(db: Db, filter: AuditFilter, limit: number, after?: Position) {
  let query = db.selectFrom('audit_events').selectAll();
  if (filter.actor !== undefined) query = query.where('actor', '=', filter.actor);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  if (filter.target_type !== undefined) query = query.where('target_type', '=', filter.target_type);
  if (filter.target_id !== undefined) query = query.where('target_id', '=', filter.target_id);
  if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('at', '<', filter.to);
  if (after)
    query = query.where((eb) =>
      eb.or([eb('at', '<', after.at), eb.and([eb('at', '=', after.at), eb('id', '<', after.id)])]),
    );
  return query.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

const EXPORT_BATCH = 500;

/**
 * The audit log (issue 43): every change an operator or the CLI made, who, when, what, and the
 * state before and after. It owns `audit_events` and only appends to it: nothing here updates or
 * deletes a row. Each change is recorded by its maker right after the change is committed (the
 * services that change accounts, keys, budgets and upstream keys keep their own transactions).
 */
export function createAuditLog(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  const nextId = idMaker();
  return {
    /** Appends one event; the before and after states are stored with their secrets redacted. */
    async record(actor: AuditActor, change: AuditChange): Promise<AuditEvent> {
      const at = clock.now();
      const row: AuditEventsTable = {
        id: nextId(at),
        at,
        actor: actor.label,
        actor_account_id: actor.accountId,
        source: actor.source,
        action: change.action,
        target_type: change.target.type,
        target_id: change.target.id,
        before_json: change.before === null ? null : JSON.stringify(redact(change.before)),
        after_json: change.after === null ? null : JSON.stringify(redact(change.after)),
        request_id: actor.requestId,
      };
      await db.insertInto('audit_events').values(row).execute();
      return eventOf(row);
    },

    /** A page of events, newest first, and the cursor of the next page (null on the last). */
    async list(filter: AuditFilter, page: { limit: number; cursor?: string | undefined }) {
      const after = page.cursor === undefined ? undefined : positionOf(page.cursor);
      const rows = await selectEvents(db, filter, page.limit + 1, after);
      const items = rows.slice(0, page.limit).map(eventOf);
      const last = items.at(-1);
      return { items, nextCursor: rows.length > page.limit && last ? cursorOf(last) : null };
    },

    /** Every event matching `filter`, newest first, read in batches (the export streams them). */
    async *all(filter: AuditFilter): AsyncGenerator<AuditEvent> {
      let after: Position | undefined;
      for (;;) {
        const rows = await selectEvents(db, filter, EXPORT_BATCH, after);
        for (const row of rows) yield eventOf(row);
        const last = rows.at(-1);
        if (rows.length < EXPORT_BATCH || !last) return;
        after = { at: Number(last.at), id: last.id };
      }
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
