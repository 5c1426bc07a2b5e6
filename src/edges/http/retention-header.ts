import type { FastifyRequest } from 'fastify';
import { InvalidInput } from '../../base/domain/errors.js';

/** The request header that asks a generation to store nothing (docs/api.md, Zero-retention). */
export const RETENTION_HEADER = 'atelier-retention';

/**
 * Whether the request asked to store nothing (`Atelier-Retention: none`, any case). Any other value,
 * or the header sent twice, is refused: a caller who must not store images must never have a typo
 * quietly ignored.
 */
export function zeroRetentionAsked(request: Pick<FastifyRequest, 'headers'>): boolean {
  const value = request.headers[RETENTION_HEADER];
  if (value === undefined) return false;
  if (typeof value !== 'string' || value.trim().toLowerCase() !== 'none') {
    throw new InvalidInput(
      'Atelier-Retention must be sent once, as "none" (store nothing after the images are fetched)',
      'Atelier-Retention',
    );
  }
  return true;
}
