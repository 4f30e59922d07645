import type http from 'node:http';
import { clientKey } from '../../platform/http/connectionAdmission.ts';

/**
 * Live subscriptions (GraphQL over SSE: a request that accepts `text/event-stream`, or
 * `multipart/mixed`, which yoga streams as well) hold a
 * connection for as long as the client likes, so they are counted apart from connections
 * (docs/security.md §2, "Connections"): at most `perClient` per remote address and `max` in all.
 * A request past either cap is answered at once (429 / 503, a one-line JSON body) and never
 * reaches GraphQL. msgx serves no websocket: an Upgrade request is a plain request here.
 */
export interface StreamLimits {
  readonly max: number;
  readonly perClient: number;
}

export type StreamEntry =
  | { readonly ok: true; release(): void }
  | { readonly ok: false; readonly status: 429 | 503; readonly reason: string };

export interface StreamAdmission {
  enter(req: http.IncomingMessage): StreamEntry;
  open(): number;
}

/** A request that asks for a stream of results: SSE, or yoga's other streaming answer, multipart/mixed. */
export function wantsEventStream(req: http.IncomingMessage): boolean {
  return /\b(text\/event-stream|multipart\/mixed)\b/i.test(String(req.headers.accept ?? ''));
}

export function createStreamAdmission(limits: StreamLimits): StreamAdmission {
  const perClient = new Map<string, number>();
  let open = 0;
  return {
    open: () => open,
    enter(req) {
      const key = clientKey(req.socket.remoteAddress);
      const mine = perClient.get(key) ?? 0;
      if (mine >= limits.perClient) {
        return { ok: false, status: 429, reason: `too many live subscriptions from your address (at most ${limits.perClient}, MSGX_SUBSCRIPTIONS_PER_CLIENT)` };
      }
      if (open >= limits.max) {
        return { ok: false, status: 503, reason: `too many live subscriptions (at most ${limits.max}, MSGX_SUBSCRIPTIONS_MAX); try again later` };
      }
      open++;
      perClient.set(key, mine + 1);
      let released = false;
      return {
        ok: true,
        release() {
          if (released) return;
          released = true;
          open--;
          const left = (perClient.get(key) ?? 1) - 1;
          if (left <= 0) perClient.delete(key);
          else perClient.set(key, left);
        },
      };
    },
  };
}
