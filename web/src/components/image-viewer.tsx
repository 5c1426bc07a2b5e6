import type { ReactNode } from 'react';
import { downloadName, formatBytes } from '../lib/format';
import { Dialog } from './dialog';
import { DownloadIcon } from './icons';

/** One image, large, in a dialog, with its download link and any extra actions. */
export function ImageViewer({
  url,
  alt,
  id,
  width,
  height,
  bytes,
  actions,
  onClose,
}: {
  url: string;
  alt: string;
  id: string;
  width?: number | undefined;
  height?: number | undefined;
  bytes?: number | undefined;
  actions?: ReactNode;
  onClose: () => void;
}) {
  return (
    <Dialog title={alt.length > 80 ? `${alt.slice(0, 80)}…` : alt} onClose={onClose} wide>
      <div className="viewer">
        <img src={url} alt={alt} className="viewer-image" />
        <div className="row wrap between">
          <p className="muted">
            {width && height ? `${width} × ${height}` : ''}
            {bytes ? ` · ${formatBytes(bytes)}` : ''}
          </p>
          <div className="row wrap tight">
            {actions}
            <a className="button" href={url} download={downloadName(alt, id, url)}>
              <DownloadIcon /> Download
            </a>
          </div>
        </div>
      </div>
    </Dialog>
  );
}
