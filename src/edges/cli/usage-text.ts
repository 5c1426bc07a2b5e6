import { TIERS } from '../../base/domain/tiers.js';
import { KEYS_USAGE } from './keys-command.js';
import { UPSTREAM_KEYS_USAGE } from './upstream-keys-command.js';

/** The CLI's usage: every command, printed by `help` and after a usage error. */
export const USAGE = `Usage: atelier <command>

Commands:
  serve                                 start one node with the roles in ATELIER_ROLES (api, worker; default both),
                                        on the built server (built first only when missing or stale)
  accounts create --email E [--tier T] [--password P] [--json]
  accounts rotate-key --email E [--json]
  accounts rotate-webhook-secret --email E [--grace-seconds N] [--json]
                                        a new webhook signing secret; the old one keeps signing beside it
                                        for N seconds (default 86400 = 24 h; 0 stops it at once)
  accounts set-tier --email E --tier T
  accounts set-password --email E --password P [--permanent]
                                        an operator's reset: ends the account's website sessions; the next
                                        one can only set the person's own password (API keys unaffected);
                                        --permanent: the password is the person's own, no change asked
  accounts set-budget --email E [--key ID] [--daily USD] [--monthly USD] [--json]
                                        spend budgets per UTC day and month in US dollars (e.g. 25 or
                                        12.50; none removes one), of the account or of one of its API
                                        keys (--key: its key_… id or hint); generate requests that may
                                        cost more than is left are refused (402 budget_exceeded)
  accounts set-upstream-key --email E [--provider P] (--key K | --key -)   (an empty key removes it)
  accounts disable --email E [--json]   refuse the account's API key and end its sessions at once, on every node
  accounts enable --email E [--json]    let a disabled account's API key work again (it signs in anew)
  accounts list [--json]
  accounts export --email E --out FILE [--json]
                                        the account's works and uploads as a ZIP with metadata.json
  accounts erase --email E --yes [--json]
                                        erase the account for good: keys, sessions, grants, works, uploads,
                                        webhooks, settings; its files leave storage at the next lifecycle
                                        run (those no other account uses); usage kept as anonymous totals
${KEYS_USAGE}
${UPSTREAM_KEYS_USAGE}
  usage [--email E] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]
                                        images completed and failed per account (UTC days; default the
                                        last 30), or of one account per day and model, with its allowance
  migrate-store --to postgres://… [--storage s3://bucket[/prefix]]
                                        copy this single-node install (ATELIER_DATA_DIR) into PostgreSQL
                                        (+ S3: AWS_* and ATELIER_S3_ENDPOINT as for serve); safe to rerun
  catalog check [--catalog PATH] [--offline] [--days N] [--json]
                                        upstream models of the catalog near (N days, default 30) or past
                                        their shutdown, and missing from the providers' model lists (asked
                                        with the deployment keys unless --offline); exit 1 when one is gone
  catalog show [--json]                 the catalog version in force in the store, and its document
  catalog import FILE                   store FILE as the next catalog version (checked as at a start;
                                        every node uses it within seconds; in the audit log)
  mcp                                   MCP stdio server (env ATELIER_API_KEY, ATELIER_BASE_URL)

Tiers: ${TIERS.join(', ')}. The CLI works on ATELIER_DATA_DIR / ATELIER_DATABASE_URL, with or without the server running;
commands other than "accounts create" and "serve" refuse a data dir with no database.
Exit codes: 0 success, 1 failure (e.g. unknown account, no database), 2 usage error.`;
