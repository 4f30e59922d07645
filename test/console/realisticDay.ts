/**
 * A realistic day for the console's browser tests and the screenshots: corpus scenarios 01 (plan
 * and operations), 04 (the whole interface) and 05 (reference data), sent through the mailbox of a
 * running msgx, plus a few messages the corpus lacks (a diverted flight that stays on the board).
 */
import type { Mailbox } from '../../src/platform/mailbox/port.ts';
import type { Queryable } from '../../src/platform/db.ts';
import { readScenario } from '../support/corpusDir.ts';
import { waitFor } from '../support/waitFor.ts';

export const DAY_SCENARIOS = ['01-plan-and-operations', '04-whole-interface', '05-reference-data'] as const;

/** Messages the corpus does not have: MU5123 (880003, its cancel undone in 01) is cancelled again; CA1501 (880001) is diverted to PVG. */
export const EXTRA_MESSAGES: readonly string[] = [
  `<?xml version="1.0" encoding="UTF-8"?>
<MSG><META><SNDR>AODB</SNDR><SEQN>990001</SEQN><DTTM>20250314090000</DTTM><TYPE>FLOP</TYPE><STYP>CNCL</STYP></META><FLOP><FLID>880003</FLID><CNCL>14MAR251130</CNCL></FLOP></MSG>`,
  `<?xml version="1.0" encoding="UTF-8"?>
<MSG><META><SNDR>AODB</SNDR><SEQN>990002</SEQN><DTTM>20250314090500</DTTM><TYPE>FLOP</TYPE><STYP>FDIV</STYP></META><FLOP><FLID>880001</FLID><FDIV DDES="PVG" DDIR="TO"/></FLOP></MSG>`,
];

/** Insert the day's messages and wait until every one is terminal and projected. */
export async function loadRealisticDay(mailbox: Mailbox, pool: Queryable, now: Date): Promise<number> {
  let n = 0;
  for (const name of DAY_SCENARIOS) {
    for (const f of readScenario(name).files) {
      await mailbox.insertInbound(f.xml, now);
      n++;
    }
  }
  for (const xml of EXTRA_MESSAGES) {
    await mailbox.insertInbound(xml, now);
    n++;
  }
  await waitFor(
    async () => {
      const { rows } = await pool.query<{ copied: number; open: number; lagging: number }>(
        `SELECT (SELECT count(*)::int FROM proc_state) AS copied,
                (SELECT count(*)::int FROM proc_state WHERE state IN ('PENDING', 'FAILED')) AS open,
                (SELECT count(*)::int FROM projection_checkpoint
                  WHERE position < (SELECT COALESCE(max(position), 0) FROM decision_event)) AS lagging`,
      );
      return rows[0]!.copied >= n && rows[0]!.open === 0 && rows[0]!.lagging === 0;
    },
    { timeoutMs: 120_000, what: 'the realistic day processed and projected' },
  );
  return n;
}
