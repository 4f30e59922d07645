import type { Socket } from 'node:net';
import type { ApiHandler, BrokerContext } from './apis/api.ts';
import { apiKeys, newDecoder } from './kafkajsInternals.ts';
import { FrameReader, readRequestHeader, responseFrame } from './wire.ts';

export interface ConnectionDeps {
  readonly ctx: BrokerContext;
  readonly handlers: ReadonlyMap<number, ApiHandler>;
  /** A failure of the broker itself (not of the client); the connection is closed after it. */
  readonly onInternalError: (error: Error) => void;
}

/**
 * Serves one client connection. Requests are handled one at a time in arrival order, as a Kafka
 * broker does per connection; a long-polling Fetch holds only its own connection (kafkajs
 * sends fetches on a dedicated one).
 */
export function serveConnection(socket: Socket, deps: ConnectionDeps): void {
  const reader = new FrameReader();
  const closed = new AbortController();
  let queue = Promise.resolve();

  socket.on('close', () => closed.abort());
  // Clients resetting the connection is normal; 'close' follows and ends the connection.
  socket.on('error', () => undefined);
  socket.on('data', (chunk) => {
    let frames: Buffer[];
    try {
      frames = reader.push(chunk);
    } catch (error) {
      deps.onInternalError(new Error('unreadable request stream', { cause: error }));
      socket.destroy();
      return;
    }
    for (const frame of frames) queue = queue.then(() => handleFrame(frame));
  });

  async function handleFrame(frame: Buffer): Promise<void> {
    if (socket.destroyed) return;
    if (deps.ctx.faults.shouldDropConnection()) {
      socket.destroy();
      return;
    }
    try {
      const response = await respond(frame);
      if (response !== null && !socket.destroyed) socket.write(response);
    } catch (error) {
      deps.onInternalError(error instanceof Error ? error : new Error('request failed', { cause: error }));
      socket.destroy();
    }
  }

  /** The response frame, or null when none is due. Throws when the request cannot be served. */
  async function respond(frame: Buffer): Promise<Buffer | null> {
    const body = newDecoder(frame);
    const header = readRequestHeader(body);
    const handler = deps.handlers.get(header.apiKey);
    const versionOk =
      handler !== undefined &&
      (header.apiKey === apiKeys.ApiVersions ||
        (header.apiVersion >= handler.minVersion && header.apiVersion <= handler.maxVersion));
    if (handler === undefined || !versionOk) {
      // Real brokers close the connection on an API/version they did not advertise.
      throw new Error(`unsupported request: api key ${header.apiKey} v${header.apiVersion}`);
    }
    try {
      const response = await handler.handle(deps.ctx, {
        version: header.apiVersion,
        clientId: header.clientId ?? '',
        body,
        signal: closed.signal,
      });
      return response === null ? null : responseFrame(header.correlationId, response.buffer);
    } catch (error) {
      throw new Error(`api key ${header.apiKey} v${header.apiVersion} failed`, { cause: error });
    }
  }
}
