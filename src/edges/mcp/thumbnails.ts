import { sniffImageType } from '../../infra/images/image-type.js';
import { readCapped } from './read-capped.js';

/** A preview an MCP image content block can carry. */
export interface Thumbnail {
  /** Base64 of the image bytes. */
  data: string;
  mimeType: string;
  /** The rendition's width: the requested one, or the original's when that is narrower. */
  width: number;
  /** Known when the original's size is known (the task record's width and height). */
  height?: number;
}

export type ThumbnailOutcome = { ok: true; thumbnail: Thumbnail } | { ok: false; reason: string };

/** An image to preview: its stable URL and, when known, its size in pixels. */
export interface ThumbnailSource {
  url: string;
  width?: number;
  height?: number;
}

export interface Thumbnailer {
  /** One outcome per source, in order; never throws for a bad image, only when `signal` aborts. */
  render(sources: readonly ThumbnailSource[], signal?: AbortSignal): Promise<ThumbnailOutcome[]>;
}

export interface ThumbnailerOptions {
  /** How files are fetched; the remote endpoint passes one that stays inside the app. */
  fetch?: typeof fetch;
  /**
   * Base64 characters all thumbnails of one result may take together. Some MCP clients cap a tool
   * result at 1 MB, and the JSON of the result is sent twice (text and structured), so the default
   * keeps images to 600 kB and leaves the rest for the records.
   */
  budgetChars?: number;
  /** Base64 characters one thumbnail may take, however few images there are. */
  maxCharsPerImage?: number;
  timeoutMs?: number;
  concurrency?: number;
}

/**
 * Widths to ask Atelier's /files route for (`?w=<width>&format=webp`), widest first: a subset of the
 * server's rendition widths (src/infra/blobs/renditions.ts), so each is made once and kept in storage.
 */
export const THUMBNAIL_WIDTHS = [480, 320, 160] as const;

/**
 * Previews finished images from Atelier's own renditions: the server resizes (and keeps) a small
 * WebP of each result, so this process decodes and encodes nothing and needs no native module.
 */
export function createThumbnailer(options: ThumbnailerOptions = {}): Thumbnailer {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const budgetChars = options.budgetChars ?? 600_000;
  const maxCharsPerImage = options.maxCharsPerImage ?? 200_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const concurrency = options.concurrency ?? 3;

  /** The body, or undefined when it is larger than `maxBytes` (read no further than that). */
  async function download(url: string, maxBytes: number, signal: AbortSignal | undefined) {
    const timeout = AbortSignal.timeout(timeoutMs);
    // Security: no Authorization header. Result URLs are public, and they may point to another
    // host (a CDN, a public base URL) that must never see the API key.
    const response = await fetchImpl(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const bytes = await readCapped(response, maxBytes);
    if (bytes === undefined) return undefined;
    if (!response.body) throw new Error('empty body');
    return { bytes, contentType: response.headers.get('content-type') ?? '' };
  }

  async function renderOne(
    source: ThumbnailSource,
    maxChars: number,
    signal: AbortSignal | undefined,
  ): Promise<ThumbnailOutcome> {
    let parsed: URL;
    try {
      parsed = new URL(source.url);
    } catch {
      return { ok: false, reason: 'not a URL' };
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      return { ok: false, reason: 'not an http(s) URL' };
    // Base64 takes 4 characters per 3 bytes.
    const maxBytes = Math.floor((maxChars * 3) / 4);
    for (const width of THUMBNAIL_WIDTHS) {
      const rendition = new URL(parsed);
      rendition.searchParams.set('w', String(width));
      rendition.searchParams.set('format', 'webp');
      let body: Awaited<ReturnType<typeof download>>;
      try {
        body = await download(rendition.href, maxBytes, signal);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        return { ok: false, reason: `could not download a rendition (${errorText(error)})` };
      }
      if (body === undefined) continue;
      // Magic bytes, not the header: only an image the client can show goes into the result.
      const type = sniffImageType(body.bytes.subarray(0, 32));
      if (type === null) return { ok: false, reason: 'the rendition is not an image' };
      const shown = source.width !== undefined ? Math.min(width, source.width) : width;
      const height =
        source.width && source.height
          ? Math.max(1, Math.round((source.height * shown) / source.width))
          : undefined;
      return {
        ok: true,
        thumbnail: {
          data: body.bytes.toString('base64'),
          mimeType: type,
          width: shown,
          ...(height !== undefined ? { height } : {}),
        },
      };
    }
    return { ok: false, reason: 'too many images in this result to preview them all within its size limit' };
  }

  return {
    async render(sources, signal) {
      const unique = [...new Map(sources.map((source) => [source.url, source])).values()];
      if (unique.length === 0) return [];
      const maxChars = Math.min(maxCharsPerImage, Math.floor(budgetChars / unique.length));
      const byUrl = new Map<string, ThumbnailOutcome>();
      let next = 0;
      const worker = async () => {
        while (next < unique.length) {
          const source = unique[next++];
          if (source !== undefined) byUrl.set(source.url, await renderOne(source, maxChars, signal));
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, unique.length) }, worker));
      return sources.map((source) => byUrl.get(source.url) ?? { ok: false, reason: 'not rendered' });
    },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
