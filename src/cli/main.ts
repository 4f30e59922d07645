import { ConfigError, loadConfig, type Config } from '../platform/config.ts';
import { createLogger, type Logger } from '../platform/logger.ts';
import { commands } from './commands.ts';
import { installFatalHandler } from './fatalHandler.ts';

const USAGE = `usage: msgx <command> [options]

commands:
${'{COMMANDS}'}

Configuration comes from MSGX_* environment variables (see README.md).`;

/** Parse the command line, load config, run one command. Returns the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  const list = Object.entries(commands)
    .map(([n, c]) => `  ${n.padEnd(18)} ${c.summary}`)
    .join('\n');
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE.replace('{COMMANDS}', list) + '\n');
    return name ? 0 : 2;
  }
  const cmd = commands[name];
  if (!cmd) {
    process.stderr.write(`msgx: unknown command '${name}'\n\n${USAGE.replace('{COMMANDS}', list)}\n`);
    return 2;
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
    return await cmd.run(rest, { cfg, log });
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`msgx ${name}: ${err.message}\n`);
      return 2;
    }
    log.fatal({ err }, `msgx ${name} failed`);
    process.stderr.write(`msgx ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    removeFatalHandler();
    log.flush();
  }
}

/** Bad command-line usage: reported in one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
