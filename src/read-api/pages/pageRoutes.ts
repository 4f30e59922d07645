/**
 * The pages msgx serves itself: the offline GraphiQL (GET /graphql from a browser) and the operator
 * console (/console). Every file is same-origin — HTML that only references /assets/… files, no
 * inline script or style — so the strict CSP of platform/http/securityHeaders.ts holds for them.
 */
import { readFile } from 'node:fs/promises';
import type http from 'node:http';
import type { Route } from '../httpServer.ts';
import { PAGE_ASSETS, vendorAssets, type Asset } from './vendorAssets.ts';

const HTML = 'text/html; charset=utf-8';
const cache = new Map<string, Buffer>();

async function load(asset: Asset): Promise<Buffer> {
  let body = cache.get(asset.file);
  if (!body) {
    body = await readFile(asset.file);
    if (asset.transform) body = Buffer.from(asset.transform(body.toString('utf8')), 'utf8');
    cache.set(asset.file, body);
  }
  return body;
}

async function send(req: http.IncomingMessage, res: http.ServerResponse, asset: Asset, maxAge: number): Promise<void> {
  const body = await load(asset);
  res.writeHead(200, { 'content-type': asset.type, 'content-length': body.length, 'cache-control': `public, max-age=${maxAge}` });
  res.end(req.method === 'HEAD' ? undefined : body);
}

const GRAPHIQL_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>msgx GraphiQL</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/vendor/graphiql.min.css">
<link rel="stylesheet" href="/assets/graphiql/graphiql-page.css">
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script src="/assets/vendor/react.production.min.js"></script>
<script src="/assets/vendor/react-dom.production.min.js"></script>
<script src="/assets/vendor/graphiql.min.js"></script>
<script src="/assets/graphiql/init.js"></script>
</body>
</html>
`;

const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>msgx console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/console/console.css">
</head>
<body>
<div id="app">Loading the msgx console…</div>
<script type="module" src="/assets/console/app.js"></script>
</body>
</html>
`;

function html(res: http.ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': HTML, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-cache' });
  res.end(text);
}

function redirect(res: http.ServerResponse, to: string): void {
  res.writeHead(302, { location: to, 'content-length': 0, 'cache-control': 'no-cache' });
  res.end();
}

/** A browser asking for /graphql itself (not a GraphQL request): GraphiQL's page. */
export function wantsGraphiql(req: http.IncomingMessage): boolean {
  if (req.method !== 'GET') return false;
  const url = new URL(req.url ?? '/', 'http://localhost');
  return !url.searchParams.has('query') && (req.headers.accept ?? '').includes('text/html');
}

export function serveGraphiql(res: http.ServerResponse): void {
  html(res, GRAPHIQL_HTML);
}

export function pageRoutes(): Route[] {
  let assets: Record<string, { asset: Asset; maxAge: number }> | undefined;
  const table = () => {
    if (!assets) {
      assets = {};
      for (const [p, asset] of Object.entries(vendorAssets())) assets[p] = { asset, maxAge: 86_400 };
      for (const [p, asset] of Object.entries(PAGE_ASSETS)) assets[p] = { asset, maxAge: 0 };
    }
    return assets;
  };
  const assetRoute = (method: string): Route => ({
    method,
    path: '/assets/*',
    async handler(req, res) {
      const found = table()[new URL(req.url ?? '/', 'http://localhost').pathname];
      if (!found) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('not found');
        return;
      }
      await send(req, res, found.asset, found.maxAge);
    },
  });
  return [
    assetRoute('GET'),
    assetRoute('HEAD'),
    { method: 'GET', path: '/console', handler: (_req, res) => html(res, CONSOLE_HTML) },
    // A person who types the host alone, or the console with a trailing slash, lands on the console.
    { method: 'GET', path: '/', handler: (_req, res) => redirect(res, '/console') },
    { method: 'GET', path: '/console/', handler: (_req, res) => redirect(res, '/console') },
  ];
}
