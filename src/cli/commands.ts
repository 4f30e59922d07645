import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { migrateCommand } from './migrateCommand.ts';
import { startCommand } from './startCommand.ts';

export interface CommandContext {
  readonly cfg: Config;
  readonly log: Logger;
}

export interface Command {
  readonly summary: string;
  run(args: readonly string[], ctx: CommandContext): Promise<number>;
}

/** Every `msgx` subcommand; each lives in its own module. */
export const commands: Record<string, Command> = {
  start: startCommand,
  migrate: migrateCommand,
};
