/** The website's HTTP calls: same-origin, the session cookie authenticates, errors carry the API's message. */

import type { ErrorBody } from '../../../src/base/contract/errors';

/** An error answer of the service, `{ error: { type, message } }`, or a network failure. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly type: string;

  constructor(status: number, type: string, message: string) {
    super(message);
    this.name = 'ApiRequestError';
    this.status = status;
    this.type = type;
  }
}

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

/** Called when any call answers 401: the session ended (expired, signed out elsewhere). */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** This browser's session ended by its own doing (sign out everywhere): the app goes to sign-in. */
export function signedOutHere(): void {
  for (const listener of signedOutListeners) listener();
}

async function request<T>(method: string, path: string, body?: unknown, init: RequestInit = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: payload, credentials: 'same-origin', ...init });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiRequestError(0, 'network', 'Cannot reach Atelier. Check your connection and try again.');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    // Anything may answer an error (a proxy, a gateway): read the contract's shape defensively.
    const error = (json as Partial<ErrorBody> | undefined)?.error;
    const failure = new ApiRequestError(
      response.status,
      error?.type ?? 'http_error',
      error?.message ?? `The server answered ${response.status} ${response.statusText}`,
    );
    if (response.status === 401 && !path.startsWith('/web/api/session')) signedOutHere();
    throw failure;
  }
  return json as T;
}

export const api = {
  get: <T>(path: string, init?: RequestInit) => request<T>('GET', path, undefined, init),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body),
  put: <T>(path: string, body?: unknown) => request<T>('PUT', path, body),
  patch: <T>(path: string, body?: unknown) => request<T>('PATCH', path, body),
  delete: <T>(path: string) => request<T>('DELETE', path),
};

const OPERATOR_HINT = /;[^;]*\bATELIER_[A-Z_]+[^;]*$/;

/** A message fit to show a person for any thrown value. */
export function messageOf(error: unknown): string {
  // A hint for the operator (which ATELIER_… variable to set) is the API's; a person is not told it.
  if (error instanceof ApiRequestError) return error.message.replace(OPERATOR_HINT, '');
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong. Please try again.';
}
