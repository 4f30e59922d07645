/**
 * The NOTIFY/LISTEN channel names are written in one place, src/platform/channels.ts (docs/architecture.md:
 * the outbox channel was defined three times and Channels bypassed by constants and literals).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Channels } from '../../src/platform/channels.ts';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const HOME = 'platform/channels.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []);
}

/** "file:line" of every string literal outside comments that is exactly a channel name. */
function channelLiterals(files: readonly { path: string; text: string }[]): string[] {
  const names = Object.values(Channels).join('|');
  const literal = new RegExp(`(['"\`])(?:${names})\\1`);
  return files.flatMap(({ path, text }) =>
    text.split('\n').flatMap((line, i) => {
      const code = line.replace(/\/\/.*$/, '');
      return /^\s*(\*|\/\*)/.test(code) || !literal.test(code) ? [] : [`${path}:${i + 1}`];
    }));
}

describe('NOTIFY channels', () => {
  it('are named only in platform/channels.ts', () => {
    const files = sources(SRC)
      .map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }))
      .filter((f) => f.path !== HOME);
    expect(files.length).toBeGreaterThan(100);
    expect(channelLiterals(files)).toEqual([]);
  });

  it('catches a literal in a query or a constant, not a comment or a longer name', () => {
    const sample = [
      { path: 'a.ts', text: "await c.query(\"SELECT pg_notify('msgx_inbox', $1)\", [top]);" },
      { path: 'b.ts', text: "export const OUTBOX_CHANNEL = 'msgx_outbox';" },
      { path: 'c.ts', text: ' * NOTIFY `msgx_decision` on commit\n// wakes on msgx_rebuilt' },
      { path: 'd.ts', text: "g('msgx_projection_position', 'Checkpoint');" },
    ];
    expect(channelLiterals(sample)).toEqual(['a.ts:1', 'b.ts:1']);
  });
});
