import type net from 'node:net';
import type { Logger } from '../logger.ts';

/**
 * Who may hold a connection (docs/security.md §2, "Connections"). Node's own `maxConnections`
 * drops every socket past the cap, health probes included, so msgx counts connections itself:
 *
 * - `admitted`: within the global cap and the per-client cap (clients told apart by remote address);
 * - `health-only`: past one of the caps, but kept for a moment so that `/healthz` and `/readyz` are
 *   still answered when the slots are full. Any other request on it gets 429 (this client holds
 *   its share) or 503 (the server is full) and the connection is closed; a health-only socket that
 *   has not sent its request within `healthOnlyWindowMs` is closed, so trickled headers cannot
 *   hold one. At most `healthOnlyMax` of them are open at once;
 * - past that, the socket gets a 503 written at once and is closed.
 */
export type Admission = 'admitted' | 'client-full' | 'server-full';

export interface ConnectionLimits {
  readonly maxConnections: number;
  readonly maxPerClient: number;
  readonly healthOnlyWindowMs: number;
  /** health-only sockets open at most */
  readonly healthOnlyMax: number;
}

export interface ConnectionAdmission {
  /** How the request's socket was let in (`admitted` for a socket this module never saw). */
  admissionOf(socket: net.Socket): Admission;
  /** A health-only socket's request arrived: its window no longer applies. */
  requestArrived(socket: net.Socket): void;
  /** Open sockets counted against the caps (tests, metrics). */
  open(): { admitted: number; healthOnly: number };
}

/** The answer to a socket past every cap: written before any request is read. */
const REFUSED_RAW = rawResponse(503, 'Service Unavailable', 'too many connections; try again later\n');

/** `::ffff:127.0.0.1` and `127.0.0.1` are one client. */
export function clientKey(address: string | undefined): string {
  if (!address) return 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

export function admitConnections(server: net.Server, limits: ConnectionLimits, log: Logger): ConnectionAdmission {
  const perClient = new Map<string, number>();
  const state = new WeakMap<net.Socket, { admission: Admission; window?: NodeJS.Timeout }>();
  let admitted = 0;
  let healthOnly = 0;
  let refusing = false;

  const noteRefusal = (why: Admission, key: string): void => {
    if (refusing) return;
    refusing = true;
    log.warn({ client: key, why, admitted, limits }, 'http: connection caps reached; new connections get health answers only until slots free up');
  };

  server.on('connection', (socket: net.Socket) => {
    const key = clientKey(socket.remoteAddress);
    const mine = perClient.get(key) ?? 0;
    if (admitted < limits.maxConnections && mine < limits.maxPerClient) {
      admitted++;
      perClient.set(key, mine + 1);
      state.set(socket, { admission: 'admitted' });
      socket.once('close', () => {
        admitted--;
        const left = (perClient.get(key) ?? 1) - 1;
        if (left <= 0) perClient.delete(key);
        else perClient.set(key, left);
        if (refusing && admitted < limits.maxConnections && left < limits.maxPerClient) {
          refusing = false;
          log.info({ admitted }, 'http: connection slots free again');
        }
      });
      return;
    }
    const admission: Admission = admitted >= limits.maxConnections ? 'server-full' : 'client-full';
    noteRefusal(admission, key);
    if (healthOnly >= limits.healthOnlyMax) {
      socket.end(REFUSED_RAW);
      socket.setTimeout(1000, () => socket.destroy());
      return;
    }
    healthOnly++;
    const window = setTimeout(() => socket.destroy(), limits.healthOnlyWindowMs);
    window.unref();
    state.set(socket, { admission, window });
    socket.once('close', () => {
      healthOnly--;
      clearTimeout(window);
    });
  });

  return {
    admissionOf: (socket) => state.get(socket)?.admission ?? 'admitted',
    requestArrived(socket) {
      const s = state.get(socket);
      if (s?.window) clearTimeout(s.window);
    },
    open: () => ({ admitted, healthOnly }),
  };
}

function rawResponse(status: number, text: string, body: string): string {
  return (
    `HTTP/1.1 ${status} ${text}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `retry-after: 5\r\nconnection: close\r\n\r\n${body}`
  );
}
