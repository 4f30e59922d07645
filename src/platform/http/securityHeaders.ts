import type http from 'node:http';

/**
 * The security headers every response of msgx carries (docs/contract/design.md §12, docs/security.md): set in ONE place,
 * by the HTTP server before any route runs, so /graphql, /cminmsgs/send, /metrics, health and any
 * page added later (console, offline GraphiQL) get them without doing anything.
 *
 * The CSP allows scripts, styles, images, fonts and fetches from the own origin only — no inline
 * script or style, no eval, no CDN (airport networks are closed). A page served by msgx therefore
 * loads its code as separate same-origin files (`<script src="/console/app.js">`).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
});

/** Put the security headers on a response (a handler's own writeHead headers merge with these). */
export function applySecurityHeaders(res: http.ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}
