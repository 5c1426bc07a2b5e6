import sharp from 'sharp';
import { inspectImageBuffer, MAX_IMAGE_PIXELS } from '../images/inspect-image.js';

/** A preview an MCP image content block can carry. */
export interface Thumbnail {
  /** Base64 of the JPEG bytes. */
  data: string;
  mimeType: 'image/jpeg';
  width: number;
  height: number;
}

export type ThumbnailOutcome = { ok: true; thumbnail: Thumbnail } | { ok: false; reason: string };

export interface Thumbnailer {
  /** One outcome per URL, in order; never throws for a bad image, only when `signal` aborts. */
  render(urls: readonly string[], signal?: AbortSignal): Promise<ThumbnailOutcome[]>;
}

export interface ThumbnailerOptions {
  fetch?: typeof fetch;
  /** Longest side of a thumbnail; the issue caps it at 512 px. */
  maxSide?: number;
  /**
   * Base64 characters all thumbnails of one result may take together. Some MCP clients cap a tool
   * result at 1 MB, and the JSON of the result is sent twice (text and structured), so the default
   * keeps images to 600 kB and leaves the rest for the records.
   */
  budgetChars?: number;
  /** Base64 characters one thumbnail may take, however few images there are. */
  maxCharsPerImage?: number;
  /** Largest source image downloaded; a 4K PNG is tens of MB, a bigger body is not one of ours. */
  maxSourceBytes?: number;
  timeoutMs?: number;
  concurrency?: number;
}

// Smaller and coarser until the thumbnail fits its share of the budget.
const ENCODING_LADDER: ReadonlyArray<{ side: number; quality: number }> = [
  { side: 512, quality: 75 },
  { side: 384, quality: 70 },
  { side: 256, quality: 65 },
  { side: 192, quality: 60 },
  { side: 128, quality: 55 },
];

/** Fetches result images and shrinks them to small JPEGs that fit a tool result. */
export function createThumbnailer(options: ThumbnailerOptions = {}): Thumbnailer {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const maxSide = options.maxSide ?? 512;
  const budgetChars = options.budgetChars ?? 600_000;
  const maxCharsPerImage = options.maxCharsPerImage ?? 200_000;
  const maxSourceBytes = options.maxSourceBytes ?? 64 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const concurrency = options.concurrency ?? 3;

  async function download(url: string, signal: AbortSignal | undefined): Promise<Buffer> {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not an http(s) URL');
    const timeout = AbortSignal.timeout(timeoutMs);
    // Security: no Authorization header. Result URLs are public, and they may point to another
    // host (a CDN, a public base URL) that must never see the API key.
    const response = await fetchImpl(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > maxSourceBytes) throw new Error(`image larger than ${maxSourceBytes} bytes`);
    if (!response.body) throw new Error('empty body');
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxSourceBytes) {
        await reader.cancel();
        throw new Error(`image larger than ${maxSourceBytes} bytes`);
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks);
  }

  async function encode(source: Buffer, maxChars: number): Promise<Thumbnail | undefined> {
    // The server's own checks first (magic bytes, whole file, pixel budget): libvips in this
    // process never sees an SVG, a PDF or a decompression bomb a URL happens to serve.
    await inspectImageBuffer(source);
    const image = sharp(source, { failOn: 'error', limitInputPixels: MAX_IMAGE_PIXELS });
    for (const step of ENCODING_LADDER) {
      if (step.side > maxSide) continue;
      const { data, info } = await image
        .clone()
        .resize(step.side, step.side, { fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: step.quality })
        .toBuffer({ resolveWithObject: true });
      const base64 = data.toString('base64');
      if (base64.length <= maxChars) {
        return { data: base64, mimeType: 'image/jpeg', width: info.width, height: info.height };
      }
    }
    return undefined;
  }

  async function renderOne(
    url: string,
    maxChars: number,
    signal: AbortSignal | undefined,
  ): Promise<ThumbnailOutcome> {
    let source: Buffer;
    try {
      source = await download(url, signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      return { ok: false, reason: `could not download the image (${errorText(error)})` };
    }
    try {
      const thumbnail = await encode(source, maxChars);
      if (thumbnail) return { ok: true, thumbnail };
      return {
        ok: false,
        reason: 'too many images in this result to preview them all within its size limit',
      };
    } catch (error) {
      return { ok: false, reason: `could not decode the image (${errorText(error)})` };
    }
  }

  return {
    async render(urls, signal) {
      const unique = [...new Set(urls)];
      if (unique.length === 0) return [];
      const maxChars = Math.min(maxCharsPerImage, Math.floor(budgetChars / unique.length));
      const byUrl = new Map<string, ThumbnailOutcome>();
      let next = 0;
      const worker = async () => {
        while (next < unique.length) {
          const url = unique[next++];
          if (url !== undefined) byUrl.set(url, await renderOne(url, maxChars, signal));
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, unique.length) }, worker));
      return urls.map((url) => byUrl.get(url) ?? { ok: false, reason: 'not rendered' });
    },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
