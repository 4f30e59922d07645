/**
 * A realistic day for the console's browser tests and the screenshots: corpus scenarios 01 (plan
 * and operations), 04 (the whole interface) and 05 (reference data), sent through the mailbox of a
 * running msgx, plus a few messages the corpus lacks (a diverted flight that stays on the board).
 */
import type { Mailbox } from '../../../../src/platform/mailbox/port.ts';
import type { Queryable } from '../../../../src/platform/db.ts';
import { readScenario } from '../../../support/corpusDir.ts';
import { waitFor } from '../../../support/waitFor.ts';

export const DAY_SCENARIOS = ['01-plan-and-operations', '04-whole-interface', '05-reference-data'] as const;

/**
 * Messages the corpus does not have, so that one day (14 March 2025) holds every status the board
 * shows: MU5123 (880003, its cancel undone in 01) is cancelled again; two flights are added, HU7011
 * (diverted to PVG) and HU7012 (estimated 40 minutes late).
 */
export const EXTRA_MESSAGES: readonly string[] = [
  `<?xml version="1.0" encoding="UTF-8"?>\n<MSG><META><SNDR>AODB</SNDR><SEQN>990001</SEQN><DTTM>20250314090000</DTTM><TYPE>FLOP</TYPE><STYP>CNCL</STYP></META><FLOP><FLID>880003</FLID><CNCL>14MAR251130</CNCL></FLOP></MSG>`,
  `<?xml version="1.0" encoding="UTF-8"?>\n<MSG><META><SNDR>AODB</SNDR><SEQN>990002</SEQN><DTTM>20250314090000</DTTM><TYPE>SCHD</TYPE><STYP>ADFT</STYP></META><SCHD><RECS>2</RECS><FLTR><FLID>880011</FLID><FFID>HU-HU7011-A-14MAR251520-D</FFID><ALCD>HU</ALCD><FLNO>HU7011</FLNO><MVIN>A</MVIN><SODT>14MAR251520</SODT><FLTY>J</FLTY><FLIN>D</FLIN><TRML>T1</TRML><STND>105</STND></FLTR><FLTR><FLID>880012</FLID><FFID>HU-HU7012-D-14MAR251630-D</FFID><ALCD>HU</ALCD><FLNO>HU7012</FLNO><MVIN>D</MVIN><SODT>14MAR251630</SODT><FLTY>J</FLTY><FLIN>D</FLIN><TRML>T1</TRML><STND>106</STND></FLTR></SCHD></MSG>`,
  `<?xml version="1.0" encoding="UTF-8"?>\n<MSG><META><SNDR>AODB</SNDR><SEQN>990003</SEQN><DTTM>20250314090000</DTTM><TYPE>FLOP</TYPE><STYP>FDIV</STYP></META><FLOP><FLID>880011</FLID><FDIV DDES="PVG" DDIR="TO"/></FLOP></MSG>`,
  `<?xml version="1.0" encoding="UTF-8"?>\n<MSG><META><SNDR>AODB</SNDR><SEQN>990004</SEQN><DTTM>20250314090000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META><FLOP><FLID>880012</FLID><ESTT>14MAR251710</ESTT></FLOP></MSG>`,
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
