import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Browser code msgx serves from npm packages it depends on (no CDN: airport networks are closed).
 * A fixed list: URL under /assets/ → file inside an installed package. Nothing else is served
 * from node_modules, so no request path can reach another file.
 */
const require = createRequire(import.meta.url);
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

export interface Asset {
  readonly file: string;
  readonly type: string;
  /** Applied once to the file's text before it is served. */
  readonly transform?: (text: string) => string;
}

/**
 * graphiql's stylesheet embeds its fonts as data: URLs, which the CSP (font-src 'self') refuses;
 * without those @font-face rules it uses the system fonts, and the page breaks no CSP rule.
 */
export const withoutEmbeddedFonts = (css: string): string => css.replace(/@font-face\s*\{[^}]*\}/g, '');

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * Resolved on first use, not at import: a checkout whose node_modules predates these packages
 * still runs every other route (the pages answer 500 until `npm install`).
 */
let vendor: Readonly<Record<string, Asset>> | undefined;
export const vendorAssets = (): Readonly<Record<string, Asset>> => (vendor ??= {
  '/assets/vendor/react.production.min.js': { file: path.join(packageDir('react'), 'umd/react.production.min.js'), type: JS },
  '/assets/vendor/react-dom.production.min.js': { file: path.join(packageDir('react-dom'), 'umd/react-dom.production.min.js'), type: JS },
  '/assets/vendor/graphiql.min.js': { file: path.join(packageDir('graphiql'), 'graphiql.min.js'), type: JS },
  '/assets/vendor/graphiql.min.css': { file: path.join(packageDir('graphiql'), 'graphiql.min.css'), type: CSS, transform: withoutEmbeddedFonts },
  '/assets/vendor/preact.mjs': { file: path.join(packageDir('preact'), 'dist/preact.mjs'), type: JS },
});

/** msgx's own page files (next to this module). */
const own = (rel: string, type: string): Asset => ({ file: fileURLToPath(new URL(rel, import.meta.url)), type });

export const PAGE_ASSETS: Readonly<Record<string, Asset>> = {
  '/assets/graphiql/init.js': own('./graphiql/init.js', JS),
  '/assets/graphiql/graphiql-page.css': own('./graphiql/graphiql-page.css', CSS),
  '/assets/console/app.js': own('./console/app.js', JS),
  '/assets/console/api.js': own('./console/api.js', JS),
  '/assets/console/views.js': own('./console/views.js', JS),
  '/assets/console/widgets.js': own('./console/widgets.js', JS),
  '/assets/console/operations.js': own('./console/operations.js', JS),
  '/assets/console/admin.js': own('./console/admin.js', JS),
  '/assets/console/board.js': own('./console/board.js', JS),
  '/assets/console/flight.js': own('./console/flight.js', JS),
  '/assets/console/format.js': own('./console/format.js', JS),
  '/assets/console/messages.js': own('./console/messages.js', JS),
  '/assets/console/pipeline.js': own('./console/pipeline.js', JS),
  '/assets/console/route.js': own('./console/route.js', JS),
  '/assets/console/console.css': own('./console/console.css', CSS),
};
