/**
 * A worker thread running one of our modules, as this process runs them: compiled (bin/build.js,
 * `.js` next to this file) it is started as it is; from the TypeScript sources (tsx), the worker
 * — which does not inherit the loader the main thread registered — registers tsx itself first.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/** The module `name` (no extension) beside `base` (an import.meta.url), in the form this process runs. */
export function moduleBeside(name: string, base: string): URL {
  return new URL(`./${name}${new URL(base).pathname.endsWith('.ts') ? '.ts' : '.js'}`, base);
}

export function startTsWorker(entry: URL, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  const limits = resourceLimits ? { resourceLimits } : {};
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData, ...limits });
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const boot = `import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(entry.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), { workerData, ...limits });
}
