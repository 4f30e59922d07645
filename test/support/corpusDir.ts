/**
 * The conformance corpus as the tests read it: where (the copy vendored in test/corpus/, which
 * scripts/vendorCorpus.ts keeps equal to the upstream corpus, or MSGX_CORPUS_DIR), which
 * scenarios are active, and one reader of a scenario's messages and expect.json.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CORPUS_DIR = process.env.MSGX_CORPUS_DIR
  ? path.resolve(process.env.MSGX_CORPUS_DIR)
  : fileURLToPath(new URL('../corpus/', import.meta.url));

/**
 * Scenarios of the corpus whose features are not built yet, so the suites that check expectations
 * leave them out: 04 needs the whole FLOP interface (#15). The branch
 * that makes a scenario pass deletes its line here.
 */
export const PENDING_SCENARIOS: ReadonlySet<string> = new Set([]);

/** Every sub-folder of `dir` with an expect.json, sorted by name (pending ones too). */
export function listScenarioNames(dir = CORPUS_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(dir, e.name, 'expect.json')))
    .map((e) => e.name)
    .sort();
}

/** The scenarios the suites run: every one that is not pending. */
export function activeScenarioNames(dir = CORPUS_DIR): string[] {
  return listScenarioNames(dir).filter((n) => !PENDING_SCENARIOS.has(n));
}

/**
 * Messages whose expected outcome is not built yet (scenario → files): the suites check every
 * other message of the scenario. (02's undecodable and unsupported messages PARK since #15.)
 */
export const PENDING_OUTCOMES: Readonly<Record<string, readonly string[]>> = {};

export const isPendingOutcome = (scenario: string, file: string): boolean => PENDING_OUTCOMES[scenario]?.includes(file) ?? false;

/** One message's expected outcome in expect.json (test/corpus/README.md). */
export interface ExpectedMessage {
  readonly file: string;
  readonly state: string;
  readonly errorClass?: string;
  readonly lastErrorContains?: string;
}

export interface ScenarioExpect {
  readonly scenario?: string;
  /** One entry per XML file, in file-name order. */
  readonly messages: readonly ExpectedMessage[];
  readonly flights?: Readonly<Record<string, Record<string, unknown>>>;
  readonly absentFlights?: readonly string[];
}

export interface CorpusScenario {
  readonly name: string;
  /** The scenario's XML files in file-name order (the order they are sent in). */
  readonly files: readonly { readonly name: string; readonly xml: string }[];
  readonly expect: ScenarioExpect;
}

/** A scenario's messages and expectations, read from `dir/name`. */
export function readScenario(name: string, dir = CORPUS_DIR): CorpusScenario {
  const folder = path.join(dir, name);
  const files = readdirSync(folder)
    .filter((f) => f.endsWith('.xml'))
    .sort()
    .map((f) => ({ name: f, xml: readFileSync(path.join(folder, f), 'utf8') }));
  const expect = JSON.parse(readFileSync(path.join(folder, 'expect.json'), 'utf8')) as ScenarioExpect;
  return { name, files, expect };
}

/** Every message of every active scenario, scenario by scenario in file-name order. */
export function corpusXmls(dir = CORPUS_DIR): string[] {
  return activeScenarioNames(dir).flatMap((name) => readScenario(name, dir).files.map((f) => f.xml));
}
