import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { GenerateBody } from '../../base/contract/generate-body.js';
import { QUOTE_TTL_SECONDS, type Quote } from '../../base/contract/quotes.js';
import { InvalidInput } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Catalog } from '../../capabilities/catalog/index.js';
import { costOfImage, maxImageCostOf } from '../../capabilities/catalog/index.js';
import { checkGenerateRequest } from './generate-request.js';

const PREFIX = 'qt_';

/** The body's fingerprint: its fields (sorted, nulls and quote_id dropped), hashed. */
function fingerprint(body: GenerateBody): string {
  const fields = Object.entries(body)
    .filter(([key, value]) => key !== 'quote_id' && value !== null && value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256').update(JSON.stringify(fields)).digest('base64url').slice(0, 22);
}

interface Sealed {
  /** The account. */
  a: string;
  /** The body's fingerprint. */
  h: string;
  /** The most per image, micro-dollars. */
  m: number;
  /** Expiry, ms since the epoch. */
  x: number;
}

const refuse = (message: string) => new InvalidInput(`quote_id: ${message}`, 'quote_id');

/**
 * Quotes that bind (issue 41), authenticated rather than stored: the id carries the account, the
 * body's fingerprint, the most per image and the expiry, under an HMAC of the deployment's key, so
 * any node (and a restarted one) honours it and nothing is written until the generate itself.
 */
export function createQuotes(deps: { catalog: Catalog; key: Buffer; clock: Clock }) {
  const sign = (payload: string) =>
    createHmac('sha256', deps.key)
      .update(`quotes\0${payload}`)
      .digest()
      .subarray(0, 18)
      .toString('base64url');

  return {
    /** POST /api/v1/quotes: what `body` is expected to cost, the most it can, and the id that binds it. */
    quote(accountId: string, body: GenerateBody): Quote {
      const request = checkGenerateRequest(body, deps.catalog);
      const references = request.imageUrls.length + (request.maskUrl === undefined ? 0 : 1);
      const input = { promptChars: request.prompt.length, references };
      const maxPerImage = maxImageCostOf(request.model, request.imageSize, input, request.quality);
      const typical =
        costOfImage(request.model.price, request.imageSize, undefined, request.quality)?.micros ?? 0;
      const expiresAt = deps.clock.now() + QUOTE_TTL_SECONDS * 1000;
      const sealed: Sealed = { a: accountId, h: fingerprint(body), m: maxPerImage, x: expiresAt };
      const payload = Buffer.from(JSON.stringify(sealed)).toString('base64url');
      return {
        quote_id: `${PREFIX}${payload}.${sign(payload)}`,
        expected_cost_micros: request.count * Math.min(typical, maxPerImage),
        max_cost_micros: request.count * maxPerImage,
        max_per_image_micros: maxPerImage,
        count: request.count,
        currency: 'USD',
        expires_at: Math.floor(expiresAt / 1000),
      };
    },

    /** The most per image a generate carrying `quoteId` may be charged; refuses a quote that does not bind it. */
    maxPerImage(accountId: string, quoteId: string, body: GenerateBody): number {
      const [payload = '', mac = ''] = quoteId.startsWith(PREFIX)
        ? quoteId.slice(PREFIX.length).split('.')
        : [];
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(mac);
      if (!payload || given.length !== expected.length || !timingSafeEqual(given, expected))
        throw refuse('not a quote of this deployment; ask POST /api/v1/quotes for one');
      const sealed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Sealed;
      if (sealed.a !== accountId) throw refuse("the quote is another account's");
      if (deps.clock.now() >= sealed.x)
        throw refuse(`the quote expired at ${new Date(sealed.x).toISOString()}; ask a new one`);
      if (sealed.h !== fingerprint(body))
        throw refuse('the request differs from the body that was quoted; ask a new quote for this body');
      return sealed.m;
    },
  };
}

export type Quotes = ReturnType<typeof createQuotes>;
