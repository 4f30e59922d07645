import os from 'node:os';

/** Who an audited command acts for: `--operator NAME`, else `user@host` of this process. */
export function operatorName(given?: string): string {
  return given?.trim() || `${os.userInfo().username}@${os.hostname()}`;
}
