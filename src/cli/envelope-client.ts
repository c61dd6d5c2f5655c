/**
 * The command line's one HTTP call to a node or the onboarding service: a JSON request
 * whose answer is the project's envelope (`{success, data}` or `{success: false, error:
 * {code, message}}`, src/api/envelope.ts). Resolves with `data`; any other answer (a
 * refusal, a body that is not the envelope) throws an EnvelopeRefusal carrying the status
 * and the error, whose message is `<status> <code>: <message>`, what the commands print.
 */

/** A refusal: the HTTP status and the envelope's error (code UNKNOWN when the body had none). */
export class EnvelopeRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: { code: string; message: string },
  ) {
    super(`${status} ${error.code}: ${error.message}`);
    this.name = 'EnvelopeRefusal';
  }
}

export interface EnvelopeRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent as JSON (content-type set). */
  json?: unknown;
  timeoutMs?: number;
}

const TIMEOUT_MS_DEFAULT = 30_000;

export async function callEnvelope<T>(url: string, r: EnvelopeRequest = {}): Promise<T> {
  const headers = r.json === undefined ? r.headers : { 'content-type': 'application/json', ...r.headers };
  const res = await fetch(url, {
    method: r.method ?? (r.json === undefined ? 'GET' : 'POST'),
    headers,
    body: r.json === undefined ? undefined : JSON.stringify(r.json),
    signal: AbortSignal.timeout(r.timeoutMs ?? TIMEOUT_MS_DEFAULT),
  });
  const body = (await res.json().catch(() => null)) as { success?: boolean; data?: T; error?: { code: string; message: string } } | null;
  if (!res.ok || !body?.success || body.data === undefined) {
    throw new EnvelopeRefusal(res.status, body?.error ?? { code: 'UNKNOWN', message: `no envelope in the answer of ${url}` });
  }
  return body.data;
}
