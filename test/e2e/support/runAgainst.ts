/**
 * Run corpus scenarios against a running msgx (e.g. `npm start`), the way an outside runner does:
 *   node --import tsx test/e2e/support/runAgainst.ts http://localhost:4000 test/corpus [scenario-name …]
 * Scenarios run one after another on the same database, so flids must not collide across them.
 * Exit code 0 when every check passes.
 */
import path from 'node:path';
import { waitFor } from '../../support/waitFor.ts';
import { listScenarioNames, readScenario } from '../../support/corpusDir.ts';
import { checkScenario, drained, httpGql } from './scenarioRunner.ts';

const [base = 'http://localhost:4000', root = 'test/corpus', ...only] = process.argv.slice(2);
const gql = httpGql(`${base}/graphql`);
let failed = 0;
for (const name of listScenarioNames(path.resolve(root))) {
  if (only.length > 0 && !only.includes(name)) continue;
  const s = readScenario(name, path.resolve(root));
  const ids: string[] = [];
  for (const f of s.files) {
    const res = await fetch(`${base}/cminmsgs/send`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: f.xml });
    if (res.status !== 200) throw new Error(`${s.name}/${f.name}: POST answered ${res.status} ${await res.text()}`);
    ids.push(((await res.json()) as { id: string }).id);
  }
  await waitFor(() => drained(gql), { timeoutMs: 120_000, what: `${s.name} drained` });
  const problems = await checkScenario(gql, s, ids);
  failed += problems.length > 0 ? 1 : 0;
  process.stdout.write(`${problems.length === 0 ? 'PASS' : 'FAIL'} ${s.name}\n${problems.map((p) => `  ${p}\n`).join('')}`);
}
process.exitCode = failed === 0 ? 0 : 1;
