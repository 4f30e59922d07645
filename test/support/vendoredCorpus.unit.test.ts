/**
 * test/corpus/ is a copy of the upstream conformance corpus (scripts/vendorCorpus.ts). Where the
 * upstream folder is present (the team's checkout), the copy must equal it; in a clone with nothing
 * beside it the vendored copy is all there is, and only its shape is checked.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareCorpus, describeComparison, localLinks, UPSTREAM_CORPUS, VENDORED_CORPUS, vendorCorpus } from '../../scripts/vendorCorpus.ts';
import { listScenarioNames } from './corpusDir.ts';

const comparison = await compareCorpus();

describe('vendored corpus', () => {
  it('holds the scenarios with their expectations', () => {
    expect(listScenarioNames(VENDORED_CORPUS)).toEqual(
      expect.arrayContaining(['01-plan-and-operations', '02-bad-input-and-duplicates', '03-plan-snapshots']),
    );
  });

  // Always runs: a stale copy fails; with no upstream folder beside the clone there is nothing to
  // compare, and the copy is the corpus.
  it(`equals the upstream corpus (${UPSTREAM_CORPUS}) where that folder exists`, () => {
    expect(comparison.status === 'stale' ? comparison.differences : []).toEqual([]);
    expect(['current', 'absent']).toContain(comparison.status);
  });

  describe('compareCorpus', () => {
    const tmp = mkdtemp(path.join(os.tmpdir(), 'msgx-corpus-'));
    afterAll(async () => rm(await tmp, { recursive: true, force: true }));
    const put = async (dir: string, file: string, text: string) => {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    };

    it('reports absent, current and each kind of difference', async () => {
      const root = await tmp;
      const up = path.join(root, 'up');
      const vendored = path.join(root, 'vendored');
      expect(await compareCorpus(path.join(root, 'nowhere'), vendored)).toEqual({ status: 'absent' });
      await put(up, 'a/001.xml', '<a/>');
      await put(up, 'a/expect.json', '{}');
      await put(vendored, 'a/001.xml', '<a/>');
      await put(vendored, 'a/expect.json', '{}');
      expect(await compareCorpus(up, vendored)).toEqual({ status: 'current', files: 2 });
      await put(up, 'b/001.xml', '<b/>');
      await put(vendored, 'a/expect.json', '{"x":1}');
      await put(vendored, 'a/002.xml', '<c/>');
      expect(await compareCorpus(up, vendored)).toEqual({
        status: 'stale',
        differences: ['differs a/expect.json', 'missing b/001.xml', 'extra a/002.xml'],
      });
    });

    it('copies the corpus with its links to the spec folder pointed at docs/contract/, and calls that copy current', async () => {
      const root = await tmp;
      const up = path.join(root, 'up2');
      const vendored = path.join(root, 'vendored2');
      await put(up, 'README.md', 'see `../spec/interface.md` and ../spec/Reference.md\n');
      await put(up, 'a/001.xml', '<a>../spec/interface.md</a>');
      expect(await vendorCorpus(up, vendored)).toBe(2);
      expect(await readFile(path.join(vendored, 'README.md'), 'utf8')).toBe('see `../../docs/contract/interface.md` and ../../docs/contract/reference.md\n');
      expect(await readFile(path.join(vendored, 'a/001.xml'), 'utf8')).toBe('<a>../spec/interface.md</a>');
      expect(await compareCorpus(up, vendored)).toEqual({ status: 'current', files: 2 });
      expect(localLinks('a/notes.md', Buffer.from('../spec/graphql.md')).toString()).toBe('../../../docs/contract/graphql.md');
      // The upstream design document is named in two parts: no file of the repository points at it.
      expect(localLinks('notes.md', Buffer.from('../spec/' + 'SYSTEM' + '.md')).toString()).toBe('../../docs/contract/design.md');
    });

    it('says it skipped when there is no upstream folder', () => {
      expect(describeComparison({ status: 'absent' }, '/nowhere')).toMatch(/^skipped: no upstream corpus at \/nowhere/);
    });
  });
});
