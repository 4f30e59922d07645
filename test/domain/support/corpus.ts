/** Read the conformance corpus (test/corpus/, or MSGX_CORPUS_DIR: test/support/corpusDir.ts). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { activeScenarioNames, CORPUS_DIR } from '../../support/corpusDir.ts';

export interface ExpectedMessage { file: string; state: string; errorClass?: string; lastErrorContains?: string }
export interface Expectation {
  scenario: string;
  messages: ExpectedMessage[];
  flights: Record<string, Record<string, unknown>>;
  absentFlights?: string[];
}
export interface Scenario { name: string; files: string[]; xmls: string[]; expect: Expectation }

export function loadScenarios(dir = CORPUS_DIR): Scenario[] {
  return activeScenarioNames(dir)
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
