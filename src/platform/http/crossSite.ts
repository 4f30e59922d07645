import type http from 'node:http';

/**
 * Browser cross-site requests (docs/security.md): a browser marks a request sent by another site's page
 * with `Sec-Fetch-Site: cross-site` and an `Origin`. Tools (curl, AODB, CIIMS adapters) send
 * neither, so they pass. A same-origin page (the console) sends its own origin, which matches the
 * Host it talks to. Returns why the request is refused, or undefined when it may proceed.
 */
export function crossSiteRefusal(req: http.IncomingMessage, allowedOrigins: readonly string[]): string | undefined {
  const origin = header(req, 'origin');
  if (origin !== undefined) {
    if (allowedOrigins.includes(origin) || isSameOrigin(origin, header(req, 'host'))) return undefined;
    return `cross-site request refused: origin ${JSON.stringify(origin.slice(0, 200))} is not in MSGX_ALLOWED_ORIGINS`;
  }
  if (header(req, 'sec-fetch-site') === 'cross-site') return 'cross-site request refused (Sec-Fetch-Site: cross-site)';
  return undefined;
}

function isSameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined || origin === 'null') return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
