/**
 * One POST through the /admin handler (src/operations/http/adminRoutes.ts) without a socket: the
 * request is a readable stream of `body`, the response a recorder of status and text.
 */
import type http from 'node:http';
import { Readable } from 'node:stream';
import { adminRoutes } from '../../src/operations/http/adminRoutes.ts';
import type { Runtime } from '../../src/platform/runtime.ts';

export async function adminRequest(
  rt: Runtime,
  pathname: string,
  authorization: string,
  body: string,
): Promise<{ status: number; body: string }> {
  const { handler } = adminRoutes(rt).routes[0]!;
  const req = Object.assign(Readable.from([Buffer.from(body)]), { url: pathname, method: 'POST', headers: { authorization } });
  let status = 0;
  let text = '';
  const res = {
    headersSent: false,
    setHeader: () => undefined,
    writeHead(s: number) {
      status = s;
      return res;
    },
    end(t?: string) {
      text = t ?? '';
    },
  };
  await handler(req as unknown as http.IncomingMessage, res as unknown as http.ServerResponse);
  return { status, body: text };
}
