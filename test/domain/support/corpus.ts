/**
 * Locate and read the conformance corpus: `../shared/corpus/` beside the repo (as in CI), or
 * MSGX_CORPUS_DIR.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ExpectedMessage { file: string; state: string; errorClass?: string; lastErrorContains?: string }
export interface Expectation {
  scenario: string;
  messages: ExpectedMessage[];
  flights: Record<string, Record<string, unknown>>;
  absentFlights?: string[];
}
export interface Scenario { name: string; files: string[]; xmls: string[]; expect: Expectation }

export function corpusDir(): string {
  return process.env.MSGX_CORPUS_DIR ?? fileURLToPath(new URL('../../../../shared/corpus/', import.meta.url));
}

export function loadScenarios(dir = corpusDir()): Scenario[] {
  return readdirSync(dir)
    .filter((name) => statSync(join(dir, name)).isDirectory())
    .sort()
    .map((name) => {
      const folder = join(dir, name);
      const files = readdirSync(folder).filter((f) => f.endsWith('.xml')).sort();
      return {
        name,
        files,
        xmls: files.map((f) => readFileSync(join(folder, f), 'utf8')),
        expect: JSON.parse(readFileSync(join(folder, 'expect.json'), 'utf8')) as Expectation,
      };
    });
}
