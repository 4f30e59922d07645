import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, targetOf, type TcpProxy } from './tcpProxy.ts';

let echo: Server;
let proxy: TcpProxy;

beforeAll(async () => {
  echo = createServer((s) => s.pipe(s));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  proxy = await startTcpProxy({ target: { host: '127.0.0.1', port: (echo.address() as { port: number }).port } });
});
afterAll(async () => {
  await proxy.close();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
  });
}

function roundTrip(s: Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    s.once('data', (b) => resolve(b.toString()));
    s.write(text);
  });
}

const closed = (s: Socket) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));

describe('tcpProxy', () => {
  it('forwards both ways; cut() closes live connections and refuses new ones; restore() listens on the same port again', async () => {
    const port = proxy.port;
    const a = await open(port);
    expect(await roundTrip(a, 'hello')).toBe('hello');
    expect(proxy.stats()).toMatchObject({ accepted: 1, live: 1 });

    proxy.cut();
    await closed(a);
    expect(proxy.isCut()).toBe(true);
    await expect(open(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(proxy.stats()).toMatchObject({ live: 0, cutConnections: 1 });

    await proxy.restore();
    expect(proxy.port).toBe(port);
    const b = await open(port);
    expect(await roundTrip(b, 'again')).toBe('again');
    b.destroy();
  });

  it('drop() closes live connections on both sides and keeps listening; upstreamPorts() names the server-side client ports', async () => {
    const seen = new Set<number>();
    echo.on('connection', (s) => s.remotePort !== undefined && seen.add(s.remotePort));
    const a = await open(proxy.port);
    expect(await roundTrip(a, 'one')).toBe('one');
    const before = proxy.stats().cutConnections;
    expect(proxy.drop()).toBe(1);
    await closed(a);
    expect(proxy.stats()).toMatchObject({ live: 0, cutConnections: before + 1 });
    const b = await open(proxy.port);
    expect(await roundTrip(b, 'two')).toBe('two');
    expect([...seen].every((p) => proxy.upstreamPorts().has(p))).toBe(true);
    expect(seen.size).toBe(2);
    b.destroy();
  });

  it('rewrites a database URL to point at the proxy, keeping user, database and query', () => {
    expect(proxy.url('postgres://postgres:pw@db.example:5432/msgx_t?sslmode=disable')).toBe(
      `postgres://postgres:pw@127.0.0.1:${proxy.port}/msgx_t?sslmode=disable`,
    );
    expect(targetOf('mysql://root@127.0.0.1/test', 3306)).toEqual({ host: '127.0.0.1', port: 3306 });
  });
});
