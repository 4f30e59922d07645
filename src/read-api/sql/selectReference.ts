/**
 * Reads of the reference read models (reference_record, seasonal_flight): by (kind, code) keys
 * in one statement, pages ordered by code, counts per kind, seasonal pages. Codes are compared
 * and ordered byte-wise (COLLATE "C"), so the order and the cursor agree whatever the database's
 * collation.
 */
import type { Queryable } from '../../platform/db.ts';
import type { RefFields } from '../../domain/reference/record.ts';
import type { SeasonalRoutePoint } from '../../domain/reference/changes.ts';

export interface ReferenceRow {
  readonly kind: string;
  readonly code: string;
  readonly name: string | null;
  readonly nameLocal: string | null;
  readonly fields: RefFields;
  /** UTC ISO instant. */
  readonly updatedAt: string;
  readonly lastMsgId: string | null;
  readonly source: string;
}

const ISO = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const RECORD_COLUMNS = `r.kind, r.code, r.name, r.name_local AS "nameLocal", r.fields, ${ISO('r.updated_at')} AS "updatedAt",
  r.last_msg_id AS "lastMsgId", r.source`;

export const referenceKey = (kind: string, code: string): string => `${kind}\u0000${code}`;

/** The records of `keys` (`kind \0 code`), in one statement. */
export async function selectReferenceByKeys(db: Queryable, keys: readonly string[]): Promise<Map<string, ReferenceRow>> {
  const out = new Map<string, ReferenceRow>();
  if (keys.length === 0) return out;
  const kinds: string[] = [];
  const codes: string[] = [];
  for (const k of keys) {
    const at = k.indexOf('\u0000');
    kinds.push(k.slice(0, at));
    codes.push(k.slice(at + 1));
  }
  const { rows } = await db.query<ReferenceRow>(
    `SELECT ${RECORD_COLUMNS}
       FROM reference_record r JOIN ROWS FROM (unnest($1::text[]), unnest($2::text[])) AS k(kind, code)
         ON r.kind = k.kind AND r.code = k.code`,
    [kinds, codes],
  );
  for (const r of rows) out.set(referenceKey(r.kind, r.code), r);
  return out;
}

export interface ReferenceFilter {
  readonly kind: string;
  readonly code: string | null;
  /** Case-insensitive substring of code, name or local name. */
  readonly search: string | null;
}

const WHERE = `r.kind = $1 AND ($2::text IS NULL OR r.code = $2)
  AND ($3::text IS NULL OR strpos(lower(r.code), lower($3)) > 0 OR strpos(lower(r.name), lower($3)) > 0
       OR strpos(lower(r.name_local), lower($3)) > 0)`;

export async function selectReferencePage(db: Queryable, f: ReferenceFilter, after: string | null, limit: number): Promise<ReferenceRow[]> {
  const { rows } = await db.query<ReferenceRow>(
    `SELECT ${RECORD_COLUMNS} FROM reference_record r
      WHERE ${WHERE} AND ($4::text IS NULL OR r.code COLLATE "C" > $4::text COLLATE "C")
      ORDER BY r.code COLLATE "C" LIMIT $5`,
    [f.kind, f.code, f.search, after, limit],
  );
  return rows;
}

export async function countReference(db: Queryable, f: ReferenceFilter): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM reference_record r WHERE ${WHERE}`, [f.kind, f.code, f.search]);
  return rows[0]?.n ?? 0;
}

export interface KindSummary {
  readonly kind: string;
  readonly count: number;
  readonly lastUpdatedAt: string | null;
  readonly lastMsgId: string | null;
}

/** Count, last update and its message per kind that has records. */
export async function selectReferenceKinds(db: Queryable): Promise<Map<string, KindSummary>> {
  const { rows } = await db.query<KindSummary>(
    `SELECT kind, count(*)::int AS count, ${ISO('max(updated_at)')} AS "lastUpdatedAt",
            (array_agg(last_msg_id ORDER BY last_position DESC))[1]::text AS "lastMsgId"
       FROM reference_record GROUP BY kind`,
  );
  return new Map(rows.map((r) => [r.kind, r]));
}

export interface SeasonalRow {
  readonly season: string;
  readonly seq: number;
  readonly airline: string | null;
  readonly flightNo: string | null;
  readonly direction: string | null;
  readonly serviceType: string | null;
  readonly flightNature: string | null;
  readonly aircraftType: string | null;
  readonly terminal: string | null;
  readonly maxPassengers: number | null;
  readonly validFrom: string;
  readonly validTo: string;
  readonly daysOfOperation: string;
  readonly scheduledTime: string | null;
  readonly route: SeasonalRoutePoint[];
  readonly linkedAirline: string | null;
  readonly linkedFlightNo: string | null;
}

export interface SeasonalFilter {
  readonly season: string | null;
  readonly airline: string | null;
  readonly flightNo: string | null;
  /** YYYY-MM-DD: the period holds it and DYOP has its weekday. */
  readonly operatesOn: string | null;
}

/** Order key: (airline, flight number, direction, season, seq), nulls as '' (byte order). */
export type SeasonalKey = readonly [string, string, string, string, string];

const SEASONAL_ORDER = `coalesce(s.airline, '') COLLATE "C", coalesce(s.flight_no, '') COLLATE "C", coalesce(s.direction, '') COLLATE "C", s.season COLLATE "C", s.seq`;

const SEASONAL_WHERE = `($1::text IS NULL OR s.season = $1) AND ($2::text IS NULL OR s.airline = $2) AND ($3::text IS NULL OR s.flight_no = $3)
  AND ($4::date IS NULL OR ($4::date BETWEEN s.valid_from AND s.valid_to
       AND substr(s.days_of_operation, extract(isodow FROM $4::date)::int, 1) <> '0'))`;

const seasonalParams = (f: SeasonalFilter): unknown[] => [f.season, f.airline, f.flightNo, f.operatesOn];

export async function selectSeasonalPage(db: Queryable, f: SeasonalFilter, after: SeasonalKey | null, limit: number): Promise<SeasonalRow[]> {
  const { rows } = await db.query<SeasonalRow>(
    `SELECT s.season, s.seq, s.airline, s.flight_no AS "flightNo", s.direction, s.service_type AS "serviceType",
            s.flight_nature AS "flightNature", s.aircraft_type AS "aircraftType", s.terminal, s.max_passengers AS "maxPassengers",
            to_char(s.valid_from, 'YYYY-MM-DD') AS "validFrom", to_char(s.valid_to, 'YYYY-MM-DD') AS "validTo",
            s.days_of_operation AS "daysOfOperation", s.scheduled_time AS "scheduledTime", s.route,
            s.linked_airline AS "linkedAirline", s.linked_flight_no AS "linkedFlightNo"
       FROM seasonal_flight s
      WHERE ${SEASONAL_WHERE}
        AND ($5::text IS NULL OR (coalesce(s.airline, '') COLLATE "C", coalesce(s.flight_no, '') COLLATE "C",
             coalesce(s.direction, '') COLLATE "C", s.season COLLATE "C", s.seq)
             > ($5::text COLLATE "C", $6::text COLLATE "C", $7::text COLLATE "C", $8::text COLLATE "C", $9::int))
      ORDER BY ${SEASONAL_ORDER} LIMIT $10`,
    [...seasonalParams(f), ...(after ?? [null, null, null, null, null]), limit],
  );
  return rows;
}

export async function countSeasonal(db: Queryable, f: SeasonalFilter): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM seasonal_flight s WHERE ${SEASONAL_WHERE}`, seasonalParams(f));
  return rows[0]?.n ?? 0;
}
