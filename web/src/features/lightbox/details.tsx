import { useId } from 'react';
import { formatBytes, formatDate, MODE_LABELS } from '../../lib/format';
import { Link } from '../../lib/router';
import { Thumbnail } from '../../ui/thumbnail';
import { actionSummary } from './image-actions';
import type { LightboxItem, WorkSettings } from './lightbox-items';
import { workLink } from './lightbox-items';

/**
 * The metadata panel: prompt, model, mode, aspect, size in pixels, date (local time), source,
 * references and the link to the work. `settings` may arrive after the item (read from Saved works).
 */
export function LightboxDetails({
  item,
  settings,
  pending,
}: {
  item: LightboxItem;
  settings: WorkSettings | undefined;
  /** The work's settings are still being read. */
  pending: boolean;
}) {
  const id = useId();
  // The image's own seed; else the work's (its first image's: image i has seed + i).
  const seed = item.seed ?? settings?.seed;
  const firstImages = item.seed === undefined && (settings?.count ?? 1) > 1;
  return (
    <section className="lightbox-details" aria-labelledby={id}>
      <h3 id={id} className="visually-hidden">
        Details
      </h3>
      {item.kind === 'result' ? (
        <blockquote className="detail-prompt">{settings?.prompt ?? item.alt}</blockquote>
      ) : (
        <p className="lightbox-caption">{item.caption}</p>
      )}
      <dl className="params">
        <dt>Kind</dt>
        <dd>{item.kind === 'result' ? 'Result' : 'Upload'}</dd>
        {settings && (
          <>
            <dt>Model</dt>
            <dd>{settings.model}</dd>
            <dt>Mode</dt>
            <dd>{MODE_LABELS[settings.mode] ?? settings.mode}</dd>
            <dt>Aspect</dt>
            <dd>{settings.aspect}</dd>
          </>
        )}
        <dt>Size</dt>
        <dd>
          {item.width && item.height ? `${item.width} × ${item.height} px` : 'No image'}
          {settings ? ` (${settings.imageSize})` : ''}
          {item.bytes ? ` · ${formatBytes(item.bytes)}` : ''}
        </dd>
        <dt>Date</dt>
        <dd>
          <time dateTime={new Date(item.createdAt).toISOString()}>{formatDate(item.createdAt)}</time>
        </dd>
        {settings && (
          <>
            <dt>Source</dt>
            <dd>{settings.source === 'api' ? 'API' : 'Website'}</dd>
          </>
        )}
        {settings?.action && (
          <>
            <dt>Made by</dt>
            <dd data-testid="detail-action">
              {actionSummary(settings.action, settings.actionOptions)}
              {settings.parentId && (
                <>
                  {' from '}
                  <Link href={workLink(settings.parentId)}>its parent work</Link>
                </>
              )}
            </dd>
          </>
        )}
        {typeof seed === 'number' && (
          <>
            <dt>Seed</dt>
            <dd data-testid="detail-seed">
              {seed}
              {firstImages ? ' (the first image’s)' : ''}
            </dd>
          </>
        )}
      </dl>
      {pending && <p className="muted small">Reading the work's settings…</p>}
      {settings?.refs && settings.refs.length > 0 && (
        <div>
          <h4 className="field-label">References</h4>
          <ul className="ref-list">
            {settings.refs.map((url, i) => (
              <li key={url} className="ref">
                <Thumbnail src={url} sizes="96px" alt={`Reference ${i + 1}`} />
              </li>
            ))}
          </ul>
        </div>
      )}
      {settings?.refs?.length === 0 && <p className="muted small">No reference images.</p>}
      {item.workId && (
        <p>
          <Link href={workLink(item.workId)}>Open the work in Saved works</Link>
        </p>
      )}
    </section>
  );
}
