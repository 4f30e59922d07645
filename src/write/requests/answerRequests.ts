import type pg from 'pg';
import type { Change, PlanSnapshotApplied } from '../../domain/changes.ts';
import type { ReferenceSnapshotApplied } from '../../domain/reference/changes.ts';
import { decodeMeta } from '../../domain/codec/meta.ts';
import { parseXml } from '../../domain/codec/xmlTree.ts';
import { withTransaction, type Queryable } from '../../platform/db.ts';
import { readAppliedMatching, type AppliedMatch } from '../../log/findDecisions.ts';

export interface Answered {
  readonly reqId: string;
  readonly mgid: string;
  /** msg_id of the SCHD/RESP that answered. */
  readonly answeredBy: string | null;
  /** rmid / window: a plan request (RQFD); kind: a reference request (RQRD) answered by a RESP of its kind. */
  readonly by: 'rmid' | 'window' | 'kind';
}

interface RespRow extends AppliedMatch {
  metaKnown: boolean;
  rmid: string | null;
  rawXml: string | null;
}

/** The answering messages' META as the pump recorded it (or their raw XML to read it from). */
async function withMeta(q: Queryable, matches: readonly AppliedMatch[]): Promise<RespRow[]> {
  const ids = matches.flatMap((m) => (m.msgId === null ? [] : [m.msgId]));
  const { rows } = await q.query<{ msgId: string; metaKnown: boolean; rmid: string | null; rawXml: string | null }>(
    `SELECT msg_id::text AS "msgId", (sndr IS NOT NULL) AS "metaKnown", rmid, raw_xml AS "rawXml"
       FROM inbox_message WHERE msg_id = ANY($1::bigint[])`,
    [ids],
  );
  const meta = new Map(rows.map((r) => [r.msgId, r]));
  return matches.map((m) => {
    const found = m.msgId === null ? undefined : meta.get(m.msgId);
    return { ...m, metaKnown: found?.metaKnown ?? false, rmid: found?.rmid ?? null, rawXml: found?.rawXml ?? null };
  });
}

const RESP_FILTER = JSON.stringify({ changes: [{ type: 'PlanSnapshotApplied', stype: 'RESP' }] });
const REFERENCE_RESP_FILTER = JSON.stringify({ changes: [{ type: 'ReferenceSnapshotApplied', stype: 'RESP' }] });

/**
 * Read the log after the tracker's cursor for Applied SCHD/RESP decisions (a PlanSnapshotApplied
 * change with stype RESP) and mark the open requests (SENT/WAITING) they answer DONE:
 *   - the RESP's RMID (inbox_message.rmid, or its META when the pump did not record it) names our
 *     MGID — only that request;
 *   - a RESP without RMID answers the open requests whose window contains the RESP's window
 *     [min SODT, max SODT] or lies within it.
 * The cursor and the request updates commit together. Only positions up to pipeline_lock's
 * last_position are read (all committed: positions are handed out in commit order).
 */
export async function answerRequests(pool: pg.Pool, tz: string, batch = 500): Promise<Answered[]> {
  return withTransaction(pool, async (c) => {
    const cur = await c.query<{ position: string }>('SELECT position FROM req_track_cursor WHERE id = 1 FOR UPDATE');
    const cursor = cur.rows[0]?.position ?? '0';
    const hz = await c.query<{ last: string }>('SELECT last_position AS last FROM pipeline_lock WHERE id = 1');
    const horizon = hz.rows[0]?.last ?? '0';
    if (BigInt(horizon) <= BigInt(cursor)) return [];

    const open = await c.query("SELECT 1 FROM req_track WHERE state IN ('SENT', 'WAITING') LIMIT 1");
    let rows: RespRow[] = [];
    if (open.rowCount !== 0) {
      rows = await withMeta(c, await readAppliedMatching(c, cursor, horizon, [RESP_FILTER, REFERENCE_RESP_FILTER], batch));
    }
    const answered: Answered[] = [];
    for (const r of rows) {
      const refKind = referenceRespKind(r.changes);
      if (refKind !== undefined) {
        // RQRD: answered by the RESP of its kind (an empty RESP answers too: the AODB replied).
        const res = await c.query<{ reqId: string; mgid: string }>(
          `UPDATE req_track SET state = 'DONE', done_at = $2, answered_by = $3
            WHERE kind = 'RQRD' AND ref_kind = $1 AND state IN ('SENT', 'WAITING') RETURNING req_id AS "reqId", mgid`,
          [refKind, r.recordedAt, r.msgId],
        );
        for (const a of res.rows) answered.push({ ...a, answeredBy: r.msgId, by: 'kind' });
        continue;
      }
      const snapshot = respSnapshot(r.changes);
      if (!snapshot) continue;
      const rmid = r.metaKnown ? r.rmid : rmidFromXml(r.rawXml, tz);
      const res = rmid
        ? await c.query<{ reqId: string; mgid: string }>(
            `UPDATE req_track SET state = 'DONE', done_at = $2, answered_by = $3
              WHERE mgid = $1 AND state IN ('SENT', 'WAITING') RETURNING req_id AS "reqId", mgid`,
            [rmid, r.recordedAt, r.msgId],
          )
        : snapshot.windowStart && snapshot.windowEnd
          ? await c.query<{ reqId: string; mgid: string }>(
              `UPDATE req_track SET state = 'DONE', done_at = $3, answered_by = $4
                WHERE state IN ('SENT', 'WAITING')
                  AND ((window_from <= $1 AND window_to >= $2) OR (window_from >= $1 AND window_to <= $2))
                RETURNING req_id AS "reqId", mgid`,
              [snapshot.windowStart, snapshot.windowEnd, r.recordedAt, r.msgId],
            )
          : { rows: [] };
      for (const a of res.rows) answered.push({ ...a, answeredBy: r.msgId, by: rmid ? 'rmid' : 'window' });
    }
    const next = rows.length === batch ? rows[rows.length - 1]!.position : horizon;
    await c.query('UPDATE req_track_cursor SET position = $1, updated_at = now() WHERE id = 1', [next]);
    return answered;
  });
}

function respSnapshot(changes: readonly Change[] | null): PlanSnapshotApplied | undefined {
  if (!Array.isArray(changes)) return undefined;
  return changes.find((ch): ch is PlanSnapshotApplied => ch.type === 'PlanSnapshotApplied' && ch.stype === 'RESP');
}

function referenceRespKind(changes: readonly Change[] | null): string | undefined {
  if (!Array.isArray(changes)) return undefined;
  return changes.find((ch): ch is ReferenceSnapshotApplied => ch.type === 'ReferenceSnapshotApplied' && ch.stype === 'RESP')?.kind;
}

function rmidFromXml(raw: string | null, tz: string): string | null {
  if (!raw) return null;
  const xml = parseXml(raw);
  if (!xml.ok) return null;
  const meta = decodeMeta(xml.root, tz);
  return meta.ok ? meta.meta.rmid : null;
}
