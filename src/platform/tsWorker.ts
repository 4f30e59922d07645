/**
 * A worker thread running one of our TypeScript modules. A worker does not inherit the tsx loader
 * the main thread registered (bin/msgx.js), so it registers tsx itself before importing `entry`.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

export function startTsWorker(entry: URL, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const boot = `import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(entry.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), {
    workerData,
    ...(resourceLimits ? { resourceLimits } : {}),
  });
}
