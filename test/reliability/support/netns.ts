/**
 * Another host on this machine (docs/scaling.md "On two hosts"): a Linux network namespace joined
 * to the root namespace by a veth pair on a private /30 (10.77.n.1 in the root namespace, the
 * gateway; 10.77.n.2 inside, the host). A process started with `prefix` runs on that host: it
 * reaches only the gateway address, where the test puts forwarders to the shared servers.
 * `linkDown()` cuts the host's link like a pulled cable: no clean close reaches either side.
 * Needs root (`ip netns add`); `netnsUnavailable()` says why not when it cannot work here.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { isProcessAlive } from '../../../src/platform/processAlive.ts';

const NS_PREFIX = 'msgx-';

/** Why network namespaces cannot be made here (not Linux, not root, no `ip netns`), or undefined. */
export function netnsUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'creating network namespaces (ip netns add) needs root';
  const r = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return `\`ip netns\` is not available: ${r.error?.message ?? r.stderr.trim()}`;
  return undefined;
}

export interface Host {
  /** The namespace's name. */
  readonly ns: string;
  /** The host's address (inside the namespace). */
  readonly address: string;
  /** The root namespace's end of the link: where forwarders listen for this host. */
  readonly gateway: string;
  /** Command prefix that runs a program on this host (spawnMsgx's `prefix`). */
  readonly prefix: readonly string[];
  /** Cut the link (the root namespace's end goes down): packets stop both ways, nothing is closed. */
  linkDown(): void;
  linkUp(): void;
  /** Delete the namespace and the link (safe to call twice, and when creation failed half-way). */
  remove(): void;
}

const ip = (...args: string[]): void => {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
};
const quietly = (fn: () => void): void => {
  try {
    fn();
  } catch {
    // already gone
  }
};

/** Namespaces (and their links) left by runs whose process is gone: `msgx-<label>-<pid>`. */
export function removeDeadRunHosts(): void {
  const list = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? '';
  for (const line of list.split('\n')) {
    const name = line.split(' ')[0] ?? '';
    const m = /^msgx-([a-z]+)-(\d+)$/.exec(name);
    if (!m || Number(m[2]) === process.pid || isProcessAlive(Number(m[2]))) continue;
    quietly(() => ip('netns', 'del', name));
    quietly(() => ip('link', 'del', `mx${m[1]!.slice(0, 1)}${m[2]}`));
  }
}

/**
 * A host `label` (a few lowercase letters) on subnet 10.77.`subnet`.0/30. Names carry this
 * process's pid, so runs of other test files or helpers never collide with it.
 */
export function createHost(label: string, subnet: number): Host {
  const ns = `${NS_PREFIX}${label}-${process.pid}`;
  const rootIf = `mx${label.slice(0, 1)}${process.pid}`; // ≤ 15 characters, as Linux requires
  const innerIf = `${rootIf}n`;
  const gateway = `10.77.${subnet}.1`;
  const address = `10.77.${subnet}.2`;
  const host: Host = {
    ns,
    address,
    gateway,
    prefix: ['ip', 'netns', 'exec', ns],
    linkDown: () => ip('link', 'set', rootIf, 'down'),
    linkUp: () => ip('link', 'set', rootIf, 'up'),
    remove() {
      quietly(() => ip('netns', 'del', ns));
      quietly(() => ip('link', 'del', rootIf));
    },
  };
  try {
    ip('netns', 'add', ns);
    ip('link', 'add', rootIf, 'type', 'veth', 'peer', 'name', innerIf);
    ip('link', 'set', innerIf, 'netns', ns);
    ip('addr', 'add', `${gateway}/30`, 'dev', rootIf);
    ip('link', 'set', rootIf, 'up');
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${address}/30`, 'dev', innerIf);
    ip('netns', 'exec', ns, 'ip', 'link', 'set', innerIf, 'up');
    ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
  } catch (err) {
    host.remove();
    throw err;
  }
  return host;
}

/** A forwarder running on a host (inside its namespace); `stop()` kills it by its pid. */
export interface InnerForwarder {
  readonly pid: number;
  stop(): void;
}

const FORWARDER_JS = `
const net = require('node:net');
const [port, toHost, toPort] = [Number(process.env.FWD_PORT), process.env.FWD_TO_HOST, Number(process.env.FWD_TO_PORT)];
net.createServer((c) => {
  const u = net.connect(toPort, toHost);
  c.pipe(u).pipe(c);
  c.on('error', () => u.destroy());
  u.on('error', () => c.destroy());
  c.on('close', () => u.destroy());
  u.on('close', () => c.destroy());
}).listen(port, '127.0.0.1', () => process.stdout.write('listening\\n'));
`;

/**
 * `127.0.0.1:port` on the host forwards to `to` (a forwarder at the host's gateway). For a server
 * that tells its clients its own address — the Kafka broker advertises 127.0.0.1:port in its
 * metadata — so that the same address works on the host. Resolves once it listens.
 */
export async function forwardInside(host: Host, port: number, to: { host: string; port: number }): Promise<InnerForwarder> {
  const child = spawn(host.prefix[0]!, [...host.prefix.slice(1), process.execPath, '-e', FORWARDER_JS], {
    env: { ...process.env, FWD_PORT: String(port), FWD_TO_HOST: to.host, FWD_TO_PORT: String(to.port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the forwarder on ${host.ns} exited with ${code}`)));
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('listening')) resolve();
    });
  });
  const pid = child.pid!;
  return { pid, stop: () => void (isProcessAlive(pid) && process.kill(pid, 'SIGKILL')) };
}
