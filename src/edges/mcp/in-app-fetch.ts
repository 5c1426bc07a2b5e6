/** One request handed to the app itself (Fastify's `inject` takes this shape). */
export interface InAppRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: Buffer | string;
  remoteAddress?: string;
}

/** The app's answer to an in-app request (Fastify's `inject` answers this shape). */
export interface InAppResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  rawPayload: Buffer;
}

export type InAppDispatch = (request: InAppRequest) => Promise<InAppResponse>;

export interface InAppFetchOptions {
  /** The app's public base URL: only URLs under it are served, everything else is refused. */
  publicBaseUrl: string;
  dispatch: InAppDispatch;
  /** The caller's address, so the app's logs and limits see who asked. */
  remoteAddress?: string;
  /** Where a redirect of /files (object storage, presigned) is followed; default the global fetch. */
  followRedirect?: typeof fetch;
  /**
   * The MCP request's W3C `traceparent`, passed on to each in-app call: a tool's generation joins
   * the trace of the agent's request (docs/operations.md, "Tracing").
   */
  traceparent?: string | undefined;
}

/**
 * A `fetch` whose requests go to this same app, never over the network: the remote MCP endpoint's
 * tools use the typed client unchanged (one tool implementation for stdio and HTTP), and each
 * request is authenticated, validated and limited by the routes themselves, with the caller's key.
 * A URL outside the public base URL is refused (the tools fetch nothing else; no SSRF through them).
 */
export function inAppFetch(options: InAppFetchOptions): typeof fetch {
  const base = new URL(options.publicBaseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const follow = options.followRedirect ?? globalThis.fetch;

  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== base.origin || !url.pathname.startsWith(`${basePath}/`)) {
      throw new TypeError(`refusing to fetch ${url.href}: not under ${options.publicBaseUrl}`);
    }
    init?.signal?.throwIfAborted();
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    if (options.traceparent !== undefined) headers.traceparent = options.traceparent;
    const body = init?.body;
    let payload: Buffer | string | undefined;
    if (typeof body === 'string') payload = body;
    else if (body instanceof Uint8Array) payload = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    else if (body !== undefined && body !== null)
      throw new TypeError('in-app fetch sends strings and bytes only');
    const answer = await options.dispatch({
      method: init?.method ?? 'GET',
      url: `${url.pathname.slice(basePath.length)}${url.search}`,
      headers,
      ...(payload !== undefined ? { payload } : {}),
      ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
    });
    const location = answer.headers.location;
    if (answer.statusCode >= 300 && answer.statusCode < 400 && typeof location === 'string') {
      // /files with object storage answers a presigned URL of the object: fetch it as a browser would.
      return follow(location, init?.signal ? { signal: init.signal } : {});
    }
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, String(one));
    }
    const bodiless = answer.statusCode === 204 || answer.statusCode === 304 || init?.method === 'HEAD';
    return new Response(bodiless ? null : new Uint8Array(answer.rawPayload), {
      status: answer.statusCode,
      headers: responseHeaders,
    });
  };
}
