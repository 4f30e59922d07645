import type http from 'node:http';

export type TextBody =
  | { ok: true; text: string }
  | { ok: false; status: 400 | 413 | 415; reason: string };

const ACCEPTED_TYPES = new Set(['application/xml', 'text/xml', 'text/plain']);
// XML 1.0 allows no C0 control character but tab, LF and CR.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;

/** The media type check of the compatibility entry (before the body is read). */
export function checkContentType(header: string | undefined): Extract<TextBody, { ok: false }> | null {
  if (!header) return { ok: false, status: 415, reason: 'Content-Type is required: application/xml, text/xml or text/plain' };
  const [type = '', ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  if (!ACCEPTED_TYPES.has(type)) {
    return { ok: false, status: 415, reason: `Content-Type ${type || '(empty)'} is not accepted: use application/xml, text/xml or text/plain` };
  }
  const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/^"|"$/g, '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return { ok: false, status: 415, reason: `charset ${charset} is not accepted: the body must be UTF-8` };
  }
  return null;
}

/**
 * Read a request body of at most `maxBytes` as UTF-8 text. Refuses (without buffering the rest)
 * a body over the limit, bytes that are not UTF-8, binary content and an empty body.
 */
export async function readTextBody(req: http.IncomingMessage, maxBytes: number): Promise<TextBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return tooLarge(maxBytes);
    chunks.push(chunk);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks, size));
  } catch {
    return { ok: false, status: 400, reason: 'the body is not valid UTF-8' }; // the verdict, not a fault
  }
  if (text.trim() === '') return { ok: false, status: 400, reason: 'the body is empty' };
  if (CONTROL.test(text)) return { ok: false, status: 400, reason: 'the body is not text (it contains control characters)' };
  return { ok: true, text };
}

const tooLarge = (maxBytes: number): TextBody => ({
  ok: false,
  status: 413,
  reason: `the body is larger than ${maxBytes} bytes (${maxBytes / 1024 / 1024} MiB)`,
});
