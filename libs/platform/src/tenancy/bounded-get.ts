/** What one GET produced: an answer (its body read up to the cap), or no answer at all. */
export type GetOutcome =
  | { readonly kind: 'answered'; readonly status: number; readonly text: string; readonly truncated: boolean }
  | { readonly kind: 'failed'; readonly timedOut: boolean; readonly cause: unknown };

export interface BoundedGetOptions {
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Bytes of body kept; the rest is not read and `truncated` is set. */
  readonly maxBytes: number;
  readonly signal?: AbortSignal;
}

/**
 * A GET whose whole exchange, body included, is bounded in time and whose body is bounded in size.
 * It never throws: transport errors, the time limit and a body that breaks off are `failed`. Redirects
 * are not followed (the API key must not travel to another host); a 3xx is an answer like any other.
 */
export async function boundedGet(url: string, options: BoundedGetOptions): Promise<GetOutcome> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    const response = await fetch(url, { method: 'GET', headers: options.headers, signal, redirect: 'manual' });
    const { text, truncated } = await readCapped(response, options.maxBytes);
    return { kind: 'answered', status: response.status, text, truncated };
  } catch (cause) {
    return { kind: 'failed', timedOut: timeout.aborted, cause };
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: '', truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Node's web streams are async iterable; leaving the loop early cancels the download.
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (size + chunk.byteLength > maxBytes) {
      // A body this large is not a tenant config; it will fail to parse, as a cut-off body does.
      chunks.push(chunk.subarray(0, maxBytes - size));
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    size += chunk.byteLength;
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
}
