import type { ErrorBody } from './types';

/** An answer outside 2xx, with the body the API sent (JSON, or plain text for auth refusals). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message ?? body.title ?? `HTTP ${status}`);
    this.name = 'ApiError';
  }

  /** 401 and 403: the caller needs (another) token. */
  get needsSignIn(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

/**
 * The bearer token lives in this module only: memory of this tab, gone on reload, never written to
 * localStorage or a cookie, so another tab or a later visitor of the machine cannot read it.
 */
let token: string | undefined;
const signInListeners = new Set<(reason: string) => void>();

export function setToken(value: string | undefined): void {
  token = value?.trim() === '' ? undefined : value?.trim();
}

export function hasToken(): boolean {
  return token !== undefined;
}

/** Called whenever the API answers 401 or 403, so the app can show its sign-in prompt. */
export function onSignInNeeded(listener: (reason: string) => void): () => void {
  signInListeners.add(listener);
  return () => signInListeners.delete(listener);
}

export interface RequestOptions {
  readonly method?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** One API call on the console's own origin; resolves to the parsed body (undefined for 204). */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method: options.method ?? 'GET',
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  const parsed = parseBody(text);
  if (!response.ok) {
    const error = new ApiError(response.status, parsed ?? { message: text.trim() || response.statusText });
    if (error.needsSignIn) for (const listener of signInListeners) listener(error.message);
    throw error;
  }
  return parsed as T;
}

function parseBody(text: string): ErrorBody | undefined {
  if (text === '') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A readable one-liner for any failure: the API's message and code, or the network error. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const code = error.body.code !== undefined ? ` (${String(error.body.code)})` : '';
    const reason = error.body.reason ? `: ${error.body.reason.replace(/_/g, ' ')}` : '';
    return `${error.message}${reason}${code}`;
  }
  return error instanceof Error ? `Network error: ${error.message}` : 'Unknown error';
}

/**
 * A file from the API (the job result): fetched with the token like every call, since a plain link
 * could not send it, and handed over as a Blob. Errors are ApiErrors, as for `api`.
 */
export async function download(path: string): Promise<Blob> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { headers });
  if (!response.ok) {
    const text = await response.text();
    const error = new ApiError(response.status, parseBody(text) ?? { message: text.trim() || response.statusText });
    if (error.needsSignIn) for (const listener of signInListeners) listener(error.message);
    throw error;
  }
  return response.blob();
}
