/**
 * The log's head, and the positions an instant falls between (docs/architecture.md "src/log").
 * Positions up to a committed head are all committed: they are handed out under pipeline_lock in
 * commit order.
 */
import { queryMap, type Queryable } from '../platform/db.ts';

/** The highest committed position ('0' for an empty log). */
export async function logHead(q: Queryable): Promise<string> {
  const { rows } = await q.query<{ head: string }>('SELECT COALESCE(max(position), 0)::bigint AS head FROM decision_event');
  return rows[0]?.head ?? '0';
}

/** The last position recorded before `instant` ('0' if none): `--from <instant>` folds what was decided before it. */
export async function positionBefore(q: Queryable, instant: Date): Promise<string> {
  const { rows } = await q.query<{ p: string }>(
    'SELECT COALESCE(max(position), 0)::bigint AS p FROM decision_event WHERE recorded_at < $1', [instant],
  );
  return rows[0]?.p ?? '0';
}

/** The last position recorded at or before `instant` ('0' if none): `--to <instant>`. */
export async function positionAtOrBefore(q: Queryable, instant: Date): Promise<string> {
  const { rows } = await q.query<{ p: string }>(
    'SELECT COALESCE(max(position), 0)::bigint AS p FROM decision_event WHERE recorded_at <= $1', [instant],
  );
  return rows[0]?.p ?? '0';
}

/** When each of some positions was recorded (position → instant); absent positions are left out. */
export async function recordedAtOf(q: Queryable, positions: readonly string[]): Promise<Map<string, Date>> {
  if (positions.length === 0) return new Map();
  return queryMap(q, 'SELECT position::text AS k, recorded_at AS v FROM decision_event WHERE position = ANY($1::bigint[])', [positions]);
}
