/**
 * Command-line mistakes, shared by main.ts and every command. Its own module so that the commands
 * do not import main.ts (main → commands → a command → main was an import cycle).
 */
import { UsageError } from '../platform/errors.ts';

export { UsageError };

/**
 * The one-line reason of a command-line mistake: a UsageError, or node:util parseArgs refusing an
 * unknown option, a missing value or an unexpected argument (its codes are ERR_PARSE_ARGS_*).
 */
export function usageMessage(err: unknown): string | undefined {
  if (err instanceof UsageError) return err.message;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_') && err instanceof Error) {
    return err.message.split('\n')[0]!.replace(/\. To specify a positional argument starting with a '-'.*$/, '');
  }
  return undefined;
}
