/**
 * A corpus day through the whole assembled writer (mailbox emulated in PostgreSQL): every corpus
 * message inserted into CMINMSGS, then waited for until nothing is unfinished, both projectors
 * are at the log head and every write-back is done.
 */
import type { TestDatabase } from '../../support/databases.ts';
import { activeScenarioNames, readScenario } from '../../support/corpusDir.ts';
import { startApp, type RunningApp } from '../../support/testApp.ts';
import { waitFor } from '../../support/waitFor.ts';

/** The corpus day run once through an app that is stopped afterwards: a database to read and check. */
export async function seedCorpusDay(db: TestDatabase): Promise<void> {
  const running = await startApp(db, { env: { MSGX_CONSISTENCY_CHECK_ON_START: 'false' } });
  try {
    await runCorpusDay(db, running);
  } finally {
    await running.stop();
  }
}

/** Insert every corpus message, wait until all is processed, projected and written back. */
export async function runCorpusDay(db: TestDatabase, running: RunningApp): Promise<number> {
  let n = 0;
  for (const name of activeScenarioNames()) {
    for (const f of readScenario(name).files) {
      await running.rt.mailbox.insertInbound(f.xml, running.rt.clock.now());
      n++;
    }
  }
  await waitFor(
    async () => {
      const { rows } = await db.pool.query(
        `SELECT (SELECT count(*)::int FROM proc_state) AS copied,
                (SELECT count(*)::int FROM proc_state WHERE state IN ('PENDING', 'FAILED') OR backfill_state = 'PENDING') AS open,
                (SELECT count(*)::int FROM projection_checkpoint
                  WHERE position < (SELECT COALESCE(max(position), 0) FROM decision_event)) AS lagging`,
      );
      return rows[0].copied === n && rows[0].open === 0 && rows[0].lagging === 0;
    },
    { timeoutMs: 90_000, what: 'corpus day processed, projected and written back' },
  );
  return n;
}
