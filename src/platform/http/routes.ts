/**
 * A route of msgx's one HTTP server and its JSON answer: shared by the read API
 * (src/read-api/httpServer.ts serves them) and the admin actions (src/operations/http).
 */
import type http from 'node:http';

export type RouteHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> | void;

export interface Route {
  readonly method: string | '*';
  /** exact path, or a prefix ending in '*' (e.g. '/graphql*') */
  readonly path: string;
  readonly handler: RouteHandler;
}

export function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
