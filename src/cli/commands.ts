import type { Config } from '../platform/config.ts';
import type { Faults } from '../platform/faults.ts';
import type { Logger } from '../platform/logger.ts';
import { archiveCommand } from './archiveCommand.ts';
import { restoreCommand } from './restoreCommand.ts';
import { compareCommand } from './compareCommand.ts';
import { exportCommand } from './exportCommand.ts';
import { migrateCommand } from './migrateCommand.ts';
import { rebuildCommand } from './rebuildCommand.ts';
import { redecideCommand } from './redecideCommand.ts';
import { replayCommand } from './replayCommand.ts';
import { replayDeliveriesCommand } from './replayDeliveriesCommand.ts';
import { requestPlanCommand } from './requestPlanCommand.ts';
import { requestReferenceCommand } from './requestReferenceCommand.ts';
import { startCommand } from './startCommand.ts';
import { statusCommand } from './statusCommand.ts';
import { verifyCommand } from './verifyCommand.ts';

export interface CommandContext {
  readonly cfg: Config;
  readonly log: Logger;
  /** The fault port for the runtime `start` opens (absent: none; see src/platform/faults.ts). */
  readonly faults?: Faults;
}

export interface Command {
  readonly summary: string;
  /** Its arguments for `msgx help <command>`, e.g. `--class C [--ids 1,2]` (default `[options]`). */
  readonly usage?: string;
  /** Longer help for `msgx help <command>` (default: the summary). */
  readonly help?: string;
  run(args: readonly string[], ctx: CommandContext): Promise<number>;
}

/** Every `msgx` subcommand; each lives in its own module. */
export const commands: Record<string, Command> = {
  start: startCommand,
  migrate: migrateCommand,
  status: statusCommand,
  replay: replayCommand,
  'replay-deliveries': replayDeliveriesCommand,
  'request-plan': requestPlanCommand,
  'request-reference': requestReferenceCommand,
  rebuild: rebuildCommand,
  redecide: redecideCommand,
  verify: verifyCommand,
  export: exportCommand,
  compare: compareCommand,
  archive: archiveCommand,
  restore: restoreCommand,
};
