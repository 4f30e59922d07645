/**
 * No merge leaves its conflict markers behind in a tracked text file (a merge's `git add -A` once
 * committed two of them into the docs).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const MARKER = /^(?:<{7}(?: |$)|>{7}(?: |$)|={7}$)/m;
const TEXT = /\.(?:ts|js|mjs|json|md|sql|graphql|yml|yaml|css|html|sh)$|(?:^|\/)run$/;

describe('merges leave no conflict markers', () => {
  it('no tracked text file holds a conflict marker line', () => {
    const files = execFileSync('git', ['ls-files'], { encoding: 'utf8' }).split('\n').filter((f) => TEXT.test(f));
    expect(files.length).toBeGreaterThan(100);
    const marked = files.filter((f) => {
      try {
        return MARKER.test(readFileSync(f, 'utf8'));
      } catch {
        return false; // listed but deleted in the working tree
      }
    });
    expect(marked).toEqual([]);
  });

  it('knows a marker from a Markdown rule or a heading underline', () => {
    expect(MARKER.test('a\n<<<<<<< HEAD\nb')).toBe(true);
    expect(MARKER.test('a\n>>>>>>> pump\nb')).toBe(true);
    expect(MARKER.test('a\n=======\nb')).toBe(true);
    expect(MARKER.test('Title\n========\n---')).toBe(false);
  });
});
