import { ConfigError, loadConfig, type Config } from '../platform/config.ts';
import type { Faults } from '../platform/faults.ts';
import { createLogger, type Logger } from '../platform/logger.ts';
import { MsgxError } from '../platform/errors.ts';
import { loadCommand, loadCommands, type Command } from './commands.ts';
import { installFatalHandler } from './fatalHandler.ts';
import { usageMessage } from './usageError.ts';

const USAGE = `usage: msgx <command> [options]

commands:
${'{COMMANDS}'}

msgx help <command> (or msgx <command> --help) describes one command; msgx --version prints the version.
Configuration comes from MSGX_* environment variables (see README.md).
Logs go to stderr, results to stdout.`;

export interface MainOptions {
  /** The fault port of the runtime (bin/msgx.js: none; the crash matrix's test entry point: a killing one). */
  readonly faults?: Faults;
}

/** Parse the command line, load config, run one command. Returns the process exit code. */
export async function main(argv: readonly string[], opts: MainOptions = {}): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    if (name === 'help' && rest.length > 0) {
      const topic = rest.length === 1 ? await loadCommand(rest[0]!) : undefined;
      if (!topic || rest.length > 1) {
        process.stderr.write(`msgx help: unknown command '${rest.join(' ')}' (msgx help lists them)\n`);
        return 2;
      }
      process.stdout.write(commandHelp(rest[0]!, topic));
      return 0;
    }
    const list = (await loadCommands()).map(([n, c]) => `  ${n.padEnd(18)} ${c.summary}`).join('\n');
    (name ? process.stdout : process.stderr).write(USAGE.replace('{COMMANDS}', list) + '\n');
    return name ? 0 : 2;
  }
  const cmd = await loadCommand(name);
  if (!cmd) {
    process.stderr.write(`msgx: unknown command '${name}' (msgx help lists them)\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(commandHelp(name, cmd));
    return 0;
  }
  let cfg: Config;
  try {
    cfg = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`msgx: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const log: Logger = createLogger(cfg.logLevel);
  const removeFatalHandler = installFatalHandler(process, log, (code) => process.exit(code));
  try {
    return await cmd.run(rest, { cfg, log, faults: opts.faults });
  } catch (err) {
    const usageProblem = usageMessage(err);
    if (usageProblem !== undefined) {
      process.stderr.write(`msgx ${name}: ${usageProblem} (msgx help ${name})\n`);
      return 2;
    }
    if (err instanceof MsgxError) {
      process.stderr.write(`msgx ${name}: ${err.message}\n`);
      return err.exitCode;
    }
    log.fatal({ err }, `msgx ${name} failed`);
    process.stderr.write(`msgx ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    removeFatalHandler();
    log.flush();
  }
}

/** `msgx help <command>`: the command's own help, or its summary. */
export function commandHelp(name: string, cmd: Command): string {
  return `usage: msgx ${name} ${cmd.usage ?? '[options]'}\n\n${cmd.help ?? cmd.summary}\n`;
}
