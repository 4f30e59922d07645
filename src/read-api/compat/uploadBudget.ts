import { json, type Route } from '../httpServer.ts';

/**
 * Bodies of POST /cminmsgs/send are buffered whole (up to 16 MiB each), so the bytes being
 * buffered at once are bounded by a budget (docs/security.md §2, MSGX_UPLOAD_BUDGET_BYTES). A
 * request reserves its declared Content-Length (a chunked one, the most a body may have) before
 * a byte of its body is read, and gives it back when its answer is sent or its connection ends.
 * A request that does not fit gets 503 with Retry-After at once, and its body is never read.
 */
export interface UploadBudget {
  /** A release function, or undefined when `bytes` do not fit now. */
  reserve(bytes: number): (() => void) | undefined;
  inUse(): number;
}

export function createUploadBudget(totalBytes: number): UploadBudget {
  let used = 0;
  return {
    inUse: () => used,
    reserve(bytes) {
      if (used + bytes > totalBytes) return undefined;
      used += bytes;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        used -= bytes;
      };
    },
  };
}

/** The route, its body reserved from `budget` first (`maxBytes`: the route's own body limit). */
export function withUploadBudget(route: Route, budget: UploadBudget, maxBytes: number): Route {
  return {
    ...route,
    async handler(req, res) {
      const declared = Number(req.headers['content-length']);
      // Over the body limit the route answers 413 without reading: nothing to reserve.
      const bytes = Number.isFinite(declared) && declared >= 0 ? (declared > maxBytes ? 0 : declared) : maxBytes;
      const release = budget.reserve(bytes);
      if (!release) {
        res.setHeader('retry-after', '5');
        res.setHeader('connection', 'close');
        res.once('finish', () => req.destroy());
        json(res, 503, { error: 'too many messages are being uploaded at once (MSGX_UPLOAD_BUDGET_BYTES); try again shortly' });
        return;
      }
      res.once('close', release); // after the answer is sent, or when the connection ends first
      await route.handler(req, res);
    },
  };
}
