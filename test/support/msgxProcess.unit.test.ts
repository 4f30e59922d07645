/** The child-process helper: output read to the end at `exit`, line waits that fail fast, a bounded tail. */
import { expect, it } from 'vitest';
import { runMsgx, spawnMsgx } from './msgxProcess.ts';

/** Each test waits on conditions only; this bounds a child that loads through tsx on a loaded machine. */
const SPAWN_MS = 300_000;

it('exit comes after all the output: stdout and stderr apart and together', async () => {
  const help = await runMsgx(['help', 'start'], {});
  expect(help.code).toBe(0);
  expect(help.stdout).toContain('usage: msgx start [--role all|writer|api]');
  expect(help.stdout.endsWith('\n')).toBe(true);
  expect(help.stderr).toBe('');
  expect(help.output).toBe(help.stdout);
}, SPAWN_MS);

it('waitForLine resolves with the line of the stream asked for, and fails at once when the child exits without it', async () => {
  const p = spawnMsgx(['frobnicate'], {});
  const onStdout = p.waitForLine(/unknown command/, { stream: 'stdout', timeoutMs: SPAWN_MS - 20_000 }).then(() => 'found', (err: Error) => err.message);
  expect(await p.waitForLine(/unknown command/, { stream: 'stderr', timeoutMs: SPAWN_MS - 20_000 })).toBe("msgx: unknown command 'frobnicate' (msgx help lists them)");
  expect(await onStdout).toMatch(/exited \(\{"code":2,"signal":null\}\) before it printed/);
  await expect(p.waitForLine('never printed')).rejects.toThrow(/exited .* without printing never printed; output:\nmsgx: unknown command/);
  expect(p.exited()).toEqual({ code: 2, signal: null });
  expect(p.signalled()).toBe(false);
}, SPAWN_MS);

it('keep bounds what is collected to a tail', async () => {
  const p = spawnMsgx(['help', 'start'], {}, { keep: 20 });
  expect(await p.exit).toEqual({ code: 0, signal: null });
  expect(p.stdout()).toHaveLength(20);
  expect(p.stdout().endsWith('\n')).toBe(true);
  expect(p.stdout()).not.toContain('usage: msgx start');
  expect(p.output()).toBe(p.stdout());
}, SPAWN_MS);

it('prefix runs node through another command that execs it in place (e.g. ip netns exec)', async () => {
  const p = spawnMsgx(['help', 'start'], {}, { prefix: ['sh', '-c', 'echo "via prefix $$" >&2; exec "$0" "$@"'] });
  expect(await p.exit).toEqual({ code: 0, signal: null });
  expect(p.stderr()).toBe(`via prefix ${p.pid}\n`);
  expect(p.stdout()).toContain('usage: msgx start [--role all|writer|api]');
}, SPAWN_MS);
