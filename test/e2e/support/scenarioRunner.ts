/**
 * A corpus scenario runner that knows nothing of msgx's code: it inserts the scenario's XML files
 * (file-name order) through a given `insert` (POST /cminmsgs/send, or a row in MariaDB CMINMSGS),
 * waits on GraphQL `pipeline` until nothing is PENDING/FAILED and every projector has caught up,
 * then checks expect.json through GraphQL exactly as test/corpus/README.md says. Any folder with
 * an expect.json is a scenario.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

export interface ScenarioExpect {
  scenario?: string;
  messages: { file: string; state: string; errorClass?: string; lastErrorContains?: string }[];
  flights?: Record<string, Record<string, unknown>>;
  absentFlights?: string[];
}

export interface Scenario {
  readonly name: string;
  readonly files: { name: string; text: string }[];
  readonly expect: ScenarioExpect;
}

/** Every sub-folder of `root` holding an expect.json, by name. */
export async function listScenarios(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await readdir(root)).sort()) {
    const dir = path.join(root, entry);
    if ((await stat(dir)).isDirectory() && (await readdir(dir)).includes('expect.json')) out.push(dir);
  }
  return out;
}

export async function loadScenario(dir: string): Promise<Scenario> {
  const expect = JSON.parse(await readFile(path.join(dir, 'expect.json'), 'utf8')) as ScenarioExpect;
  const names = (await readdir(dir)).filter((n) => n !== 'expect.json' && n.toLowerCase().endsWith('.xml')).sort();
  const files = await Promise.all(names.map(async (name) => ({ name, text: await readFile(path.join(dir, name), 'utf8') })));
  return { name: path.basename(dir), files, expect };
}

export type Gql = (query: string, variables?: Record<string, unknown>) => Promise<{ data?: any; errors?: unknown[] }>;

export function httpGql(graphqlUrl: string): Gql {
  return async (query, variables) => {
    const res = await fetch(graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as { data?: any; errors?: unknown[] };
  };
}

/** Drained: nothing PENDING/FAILED (nor uncopied) and every projector at the log head. */
export async function drained(gql: Gql): Promise<boolean> {
  const r = await gql('{ pipeline { backlog projections { name lag } } }');
  const p = r.data?.pipeline;
  return !!p && p.backlog === 0 && p.projections.length > 0 && p.projections.every((x: { lag: string }) => x.lag === '0');
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** GraphQL selection for the fields an expected value lists (nested objects and lists of objects). */
export function selectionOf(expected: Record<string, unknown>): string {
  return Object.entries(expected)
    .map(([k, v]) => {
      const sample = Array.isArray(v) ? v.find((x) => x !== null && typeof x === 'object') ?? null : v;
      if (sample !== null && typeof sample === 'object') {
        const keys: Record<string, unknown> = {};
        for (const item of Array.isArray(v) ? v : [v]) Object.assign(keys, item as object);
        return `${k} { ${selectionOf(keys)} }`;
      }
      return k;
    })
    .join(' ');
}

/** Differences between an expected value and the actual one ([] when they match). */
export function compare(where: string, expected: unknown, actual: unknown): string[] {
  if (expected === null) return actual === null || actual === undefined ? [] : [`${where}: expected null, got ${JSON.stringify(actual)}`];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${where}: expected a list, got ${JSON.stringify(actual)}`];
    if (actual.length !== expected.length) return [`${where}: expected ${expected.length} items, got ${actual.length}: ${JSON.stringify(actual)}`];
    return expected.flatMap((e, i) => compare(`${where}[${i}]`, e, actual[i]));
  }
  if (typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return [`${where}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected as object).flatMap(([k, v]) => compare(`${where}.${k}`, v, (actual as Record<string, unknown>)[k]));
  }
  if (typeof expected === 'string' && INSTANT.test(expected) && typeof actual === 'string' && INSTANT.test(actual)) {
    return Date.parse(expected) === Date.parse(actual) ? [] : [`${where}: expected instant ${expected}, got ${actual}`];
  }
  return expected === actual ? [] : [`${where}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

/**
 * Check a drained system against expect.json; `ids[i]` is the CMINMSGS id of the i-th file.
 * `skipMessage` leaves out the outcome checks of the files it names (expectations not built yet).
 */
export async function checkScenario(
  gql: Gql,
  s: Scenario,
  ids: readonly string[],
  skipMessage: (file: string) => boolean = () => false,
): Promise<string[]> {
  const problems: string[] = [];
  for (const [i, m] of s.expect.messages.entries()) {
    if (skipMessage(m.file)) continue;
    const r = await gql('query($id: ID!) { message(id: $id) { state errorClass lastError } }', { id: ids[i] });
    const got = r.data?.message;
    const where = `messages[${i}] ${m.file} (id ${ids[i]})`;
    if (!got) {
      problems.push(`${where}: message not found ${JSON.stringify(r.errors ?? null)}`);
      continue;
    }
    if (got.state !== m.state) problems.push(`${where}: state ${got.state}, expected ${m.state} (${got.errorClass ?? ''} ${got.lastError ?? ''})`);
    if (m.errorClass !== undefined && got.errorClass !== m.errorClass) problems.push(`${where}: errorClass ${got.errorClass}, expected ${m.errorClass}`);
    if (m.lastErrorContains !== undefined && !String(got.lastError ?? '').includes(m.lastErrorContains)) {
      problems.push(`${where}: lastError ${JSON.stringify(got.lastError)} lacks ${JSON.stringify(m.lastErrorContains)}`);
    }
  }
  for (const [flid, fields] of Object.entries(s.expect.flights ?? {})) {
    const r = await gql(`query($flid: ID!) { flight(flid: $flid) { ${selectionOf(fields)} } }`, { flid });
    if (r.errors) problems.push(`flights.${flid}: ${JSON.stringify(r.errors)}`);
    else if (r.data?.flight == null) problems.push(`flights.${flid}: flight not found`);
    else problems.push(...compare(`flights.${flid}`, fields, r.data.flight));
  }
  for (const flid of s.expect.absentFlights ?? []) {
    const r = await gql('query($flid: ID!) { flight(flid: $flid) { flid deleted } }', { flid });
    if (r.errors || r.data?.flight !== null) problems.push(`absentFlights ${flid}: expected null, got ${JSON.stringify(r.data?.flight ?? r.errors)}`);
  }
  return problems;
}
