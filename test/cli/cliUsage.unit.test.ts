/**
 * Command-line mistakes are usage errors: one line on stderr, exit code 2, no stack trace, and
 * nothing on stdout. `msgx help <command>` describes one command on stdout.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { commands, loadCommands } from '../../src/cli/commands.ts';
import { commandHelp } from '../../src/cli/main.ts';
import { usageMessage, UsageError } from '../../src/cli/usageError.ts';
import { spawnMsgx } from '../support/msgxProcess.ts';

async function run(args: string[]) {
  const p = spawnMsgx(args, { MSGX_LOG_LEVEL: 'info' });
  const { code } = await p.exit;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

describe('usage errors', () => {
  it.each([
    [['replay', '--bogus'], /^msgx replay: Unknown option '--bogus' \(msgx help replay\)\n$/],
    [['status', 'extra'], /^msgx status: Unexpected argument 'extra'/],
    [['replay', '--class'], /^msgx replay: Option '--class <value>' argument missing/],
    [['start', '--role', 'nope'], /^msgx start: --role must be one of all, writer, api \(got 'nope'\)/],
    [['frobnicate'], /^msgx: unknown command 'frobnicate'/],
  ])('msgx %j exits 2 with one line and no stack trace', async (args, line) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(line);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\bat .*\.(ts|js):\d+/);
    expect(r.stdout).toBe('');
  }, 120_000);
});

describe('help', () => {
  it('msgx help <command> prints that command\'s usage and help on stdout, exit 0', async () => {
    const r = await run(['help', 'start']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: msgx start [--role all|writer|api] [--standby] [--force]');
    expect(r.stdout).toContain('--standby');
    const flag = await run(['replay', '--help']);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toBe(commandHelp('replay', await commands.replay!()));
  }, 120_000);

  it('msgx --version prints the package version on stdout, exit 0', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-V']) {
      const r = await run([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`msgx ${version} (node ${process.version})\n`);
    }
  }, 120_000);

  it('msgx help <unknown> is a usage error', async () => {
    const r = await run(['help', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'nope'/);
  }, 120_000);

  it('every command has usage text', async () => {
    for (const [name, cmd] of await loadCommands()) expect(commandHelp(name, cmd)).toMatch(new RegExp(`^usage: msgx ${name} `));
  });
});

describe('usageMessage', () => {
  it('is the first line of a parseArgs refusal without the positional hint, and a UsageError\'s message', () => {
    const err = Object.assign(new TypeError("Unknown option '--x'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--x\"'"), { code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' });
    expect(usageMessage(err)).toBe("Unknown option '--x'");
    expect(usageMessage(new UsageError('bad'))).toBe('bad');
    expect(usageMessage(new Error('boom'))).toBeUndefined();
  });
});
