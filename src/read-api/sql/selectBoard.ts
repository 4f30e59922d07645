import type { FlightState } from '../../domain/flight.ts';
import type { Queryable } from '../../platform/db.ts';
import type { FlightDoc } from '../../readModel/flightDoc.ts';
import { FLIGHT_COLUMNS, flightFromRows, selectList, type DbRow } from '../../readModel/flightRows.ts';

export interface BoardFilter {
  readonly operationDay: string | null;
  readonly airline: string | null;
  readonly flightNo: string | null;
  readonly direction: 'A' | 'D' | null;
  readonly status: string | null;
  /** flight_stand.stand_code or flight_schd.current_stand */
  readonly stand: string | null;
  readonly gate: string | null;
  readonly includeDeleted: boolean;
}

/** Board order key: (operation_day, scheduled_time — null last, flid). */
export interface BoardKey {
  readonly operationDay: string;
  readonly scheduledTime: string | null;
  readonly flid: string;
}

const COLUMNS = selectList(FLIGHT_COLUMNS);

const WHERE = `
  ($1::date IS NULL OR f.operation_day = $1::date)
  AND ($2::text IS NULL OR f.airline = $2)
  AND ($3::text IS NULL OR f.flight_no = $3)
  AND ($4::text IS NULL OR f.direction = $4)
  AND ($5::text IS NULL OR f.status = $5)
  AND ($6::text IS NULL OR f.current_stand = $6
       OR EXISTS (SELECT 1 FROM flight_stand s WHERE s.flid = f.flid AND s.stand_code = $6))
  AND ($7::text IS NULL OR EXISTS (SELECT 1 FROM flight_gate g WHERE g.flid = f.flid AND g.gate_code = $7))
  AND ($8::boolean OR NOT f.deleted)`;

const filterParams = (f: BoardFilter): unknown[] => [
  f.operationDay, f.airline, f.flightNo, f.direction, f.status, f.stand, f.gate, f.includeDeleted,
];

const PAGE = `
        AND ($9::date IS NULL
             OR (f.operation_day, coalesce(f.scheduled_time, 'infinity'::timestamptz), f.flid)
              > ($9::date, coalesce($10::timestamptz, 'infinity'::timestamptz), $11::bigint))
      ORDER BY f.operation_day, coalesce(f.scheduled_time, 'infinity'::timestamptz), f.flid
      LIMIT $12`;

const pageParams = (filter: BoardFilter, after: BoardKey | null, limit: number): unknown[] => [
  ...filterParams(filter), after?.operationDay ?? null, after?.scheduledTime ?? null, after?.flid ?? null, limit,
];

/** One page of the board after `after` (exclusive), `limit` rows, in board order; lists empty. */
export async function selectBoardPage(
  q: Queryable,
  filter: BoardFilter,
  after: BoardKey | null,
  limit: number,
): Promise<FlightState[]> {
  const { rows } = await q.query<DbRow>(`SELECT ${COLUMNS} FROM flight_schd f WHERE ${WHERE}${PAGE}`, pageParams(filter, after, limit));
  return rows.map((r) => flightFromRows(r));
}

/** A flight's stored document (readModel/flightDoc.ts) if it is of `version`, else null (read the rows). */
export interface DocRow {
  readonly flid: string;
  readonly doc: FlightDoc | null;
}

const DOC_COLUMNS = `f.flid::text AS flid, CASE WHEN f.doc_version = $13 THEN f.doc END AS doc`;

/** The same page as selectBoardPage, as documents: one statement, no detail tables. */
export async function selectBoardDocs(q: Queryable, filter: BoardFilter, after: BoardKey | null, limit: number, version: number): Promise<DocRow[]> {
  const { rows } = await q.query<DocRow>(`SELECT ${DOC_COLUMNS} FROM flight_schd f WHERE ${WHERE}${PAGE}`, [...pageParams(filter, after, limit), version]);
  return rows;
}

/** The documents of the given flights (deleted ones included; absent flights have no row). */
export async function selectFlightDocs(q: Queryable, flids: readonly string[], version: number): Promise<DocRow[]> {
  const { rows } = await q.query<DocRow>(
    `SELECT f.flid::text AS flid, CASE WHEN f.doc_version = $2 THEN f.doc END AS doc FROM flight_schd f WHERE f.flid = ANY($1::bigint[])`,
    [flids, version],
  );
  return rows;
}

export async function countBoard(q: Queryable, filter: BoardFilter): Promise<number> {
  const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM flight_schd f WHERE ${WHERE}`, filterParams(filter));
  return rows[0]!.n;
}

/** Current rows of the given flights (deleted ones included); lists empty. */
export async function selectFlightsByFlid(q: Queryable, flids: readonly string[]): Promise<Map<string, FlightState>> {
  const { rows } = await q.query<DbRow>(`SELECT ${COLUMNS} FROM flight_schd f WHERE f.flid = ANY($1::bigint[])`, [flids]);
  return new Map(rows.map((r) => [String(r.flid), flightFromRows(r)] as const));
}

/** A leg key as the read model is searched for it (src/read-api/graphql/flightQueries.ts legQuery). */
export interface LegSearch {
  /** The number with its suffix, as AIDX in writes flightNo. */
  readonly flightNo: string;
  /** The ffid prefix the AIDX handler writes. */
  readonly ffidPrefix: string;
  /** The flight_no spellings of a SIS flight of the leg (`CA1501`, `CA0081`, …). */
  readonly sisFlightNos: readonly string[];
  readonly airline: string;
  readonly direction: 'A' | 'D';
  readonly day: string;
}

/**
 * The flights of a leg key (docs/contract/aidx.md "Finding a leg"): the legs AIDX created (the
 * flight number through the flight_no index, then the ffid prefix the AIDX handler writes) and the
 * SIS flights of the same airline, number, direction and operation day; deleted ones included, in
 * flid order.
 */
export async function selectFlightsByLeg(q: Queryable, leg: LegSearch): Promise<FlightState[]> {
  const { rows } = await q.query<DbRow>(
    `SELECT ${COLUMNS} FROM flight_schd f
      WHERE (f.flight_no = $1 AND starts_with(f.ffid, $2))
         OR (f.flight_no = ANY($3::text[]) AND f.operation_day = $4::date AND f.airline = $5 AND f.direction = $6
             AND NOT starts_with(coalesce(f.ffid, ''), 'AIDX|'))
      ORDER BY f.flid LIMIT 50`,
    [leg.flightNo, leg.ffidPrefix, leg.sisFlightNos, leg.day, leg.airline, leg.direction],
  );
  return rows.map((r) => flightFromRows(r));
}
