/**
 * Where the tests find the conformance corpus: the copy vendored in test/corpus/
 * (scripts/vendorCorpus.ts keeps it equal to the upstream corpus), or MSGX_CORPUS_DIR.
 */
import { existsSync, readdirSync } from 'node:fs';
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
