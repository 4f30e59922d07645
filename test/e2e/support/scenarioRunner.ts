/**
 * A corpus scenario runner that knows nothing of msgx's code: the caller inserts the scenario's
 * XML files (file-name order, read by test/support/corpusDir.ts) through POST /cminmsgs/send or
 * as rows in MariaDB CMINMSGS; this waits on GraphQL `pipeline` until nothing is PENDING/FAILED
 * and every projector has caught up, then checks expect.json through GraphQL exactly as
 * test/corpus/README.md says.
 */
import type { CorpusScenario } from '../../support/corpusDir.ts';
import { mismatches } from '../../support/matchExpected.ts';

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

/**
 * Check a drained system against expect.json; `ids[i]` is the CMINMSGS id of the i-th file.
 * `skipMessage` leaves out the outcome checks of the files it names (expectations not built yet).
 */
export async function checkScenario(
  gql: Gql,
  s: CorpusScenario,
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
    else problems.push(...mismatches(fields, r.data.flight, `flights.${flid}`));
  }
  for (const flid of s.expect.absentFlights ?? []) {
    const r = await gql('query($flid: ID!) { flight(flid: $flid) { flid deleted } }', { flid });
    if (r.errors || r.data?.flight !== null) problems.push(`absentFlights ${flid}: expected null, got ${JSON.stringify(r.data?.flight ?? r.errors)}`);
  }
  return problems;
}
