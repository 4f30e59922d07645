import type { Queryable } from '../../platform/db.ts';

export interface ConsistencyRecord {
  /** The latest recorded check (sentinel or `msgx verify --record`); null before the first. */
  readonly latest: {
    readonly checkedAt: Date;
    readonly trigger: string;
    readonly scope: string;
    readonly sampled: number;
    readonly mismatches: number;
  } | null;
  /** Flights compared by all recorded checks together. */
  readonly checkedTotal: number;
}

/** The consistency sentinel's results (migration 120): one statement. */
export async function selectConsistency(q: Queryable): Promise<ConsistencyRecord> {
  const { rows } = await q.query<{ latest: (Omit<NonNullable<ConsistencyRecord['latest']>, 'checkedAt'> & { checkedAt: string }) | null; total: string }>(
    `SELECT (SELECT json_build_object('checkedAt', checked_at, 'trigger', trigger, 'scope', scope, 'sampled', sampled, 'mismatches', mismatches)
               FROM consistency_check ORDER BY checked_at DESC, id DESC LIMIT 1) AS latest,
            (SELECT COALESCE(sum(sampled), 0)::text FROM consistency_check) AS total`,
  );
  const r = rows[0]!;
  return {
    latest: r.latest === null ? null : { ...r.latest, checkedAt: new Date(r.latest.checkedAt) },
    checkedTotal: Number(r.total),
  };
}
