/**
 * What a consistency check found (pure types and formatting). Every mismatch names what it is
 * about — a flight and its GraphQL field or list, an outbox row, a message's write-back — with the
 * value the log implies (`log`) beside the value found in the table (`row`).
 */

export type CheckName = 'flights' | 'outbox' | 'writebacks' | 'reference' | 'snapshot';

export type Mismatch =
  /** A flight field (GraphQL name) whose row value is not the fold's. */
  | { check: 'flights'; flid: string; field: string; log: unknown; row: unknown }
  /** A detail list (GraphQL name) whose rows are not the fold's list; the items only one side has. */
  | {
      check: 'flights'; flid: string; list: string; log: unknown[]; row: unknown[];
      /** Items of the fold that have no row (a missing detail row). */
      missing: unknown[];
      /** Rows that are not items of the fold (an extra detail row). */
      extra: unknown[];
    }
  /** The flight exists on one side only: in the log but without a flight_schd row, or the reverse. */
  | { check: 'flights'; flid: string; problem: 'missing-row' | 'not-in-log' }
  /** A msg_event row the decision implies but that is not there, or one that no decision implies. */
  | {
      check: 'outbox'; problem: 'missing' | 'orphan'; position: string; target: string;
      seq: number | null; flid: string | null;
      /** For an orphan: what the log holds at that position (kind, or 'none'/'after checkpoint'). */
      decision?: string;
    }
  /** A reference-data row (reference_record, seasonal_season, seasonal_flight) whose column is not the fold's. */
  | { check: 'reference'; table: string; key: string; column: string; log: unknown; row: unknown }
  /** A reference-data row the fold has and the table lacks, or the reverse. */
  | { check: 'reference'; table: string; key: string; problem: 'missing-row' | 'not-in-log' }
  /** A terminal message whose CMINMSGS write-back is neither done nor pending. */
  | {
      check: 'writebacks'; msgId: string; state: string; problem: string;
      log: unknown; row: unknown;
    }
  /** The newest write-model snapshot (`row`) differs from a fold of the log up to its position (`log`). */
  | { check: 'snapshot'; position: string; part: string; log: unknown; row: unknown };

export interface CheckReport {
  /** When the snapshot was taken (ISO UTC). */
  readonly checkedAt: string;
  readonly scope: 'all' | 'sample' | 'day' | 'flights';
  /** Checkpoints and log head the snapshot compared at. */
  readonly positions: { readonly log: string; readonly flights: string; readonly outbox: string; readonly reference: string };
  /** How much was checked: flights compared, decisions whose outbox rows were checked, terminal messages. */
  readonly checked: {
    readonly flights: number; readonly decisions: number; readonly messages: number;
    /** Reference rows (records, seasons, seasonal flights) compared: only with --all, else null. */
    readonly reference: number | null;
    /** The newest write-model snapshot checked: its position and the flights compared (absent: none of this fold code). */
    readonly snapshot?: { readonly position: string; readonly flights: number };
  };
  readonly mismatches: readonly Mismatch[];
  readonly seconds: number;
}

const show = (v: unknown): string => (v === undefined ? 'undefined' : JSON.stringify(v));

/** One line per mismatch, as the sentinel logs it and `msgx verify` prints it without --json. */
export function describeMismatch(m: Mismatch): string {
  switch (m.check) {
    case 'flights':
      if ('field' in m) return `flight ${m.flid}: ${m.field}: log ${show(m.log)}, row ${show(m.row)}`;
      if ('list' in m) {
        const parts = [`log ${m.log.length} item(s), rows ${m.row.length}`];
        if (m.missing.length > 0) parts.push(`missing rows ${show(m.missing)}`);
        if (m.extra.length > 0) parts.push(`extra rows ${show(m.extra)}`);
        if (m.missing.length === 0 && m.extra.length === 0) parts.push(`log ${show(m.log)}, rows ${show(m.row)}`);
        return `flight ${m.flid}: ${m.list}: ${parts.join('; ')}`;
      }
      return m.problem === 'missing-row'
        ? `flight ${m.flid}: in the log but has no flight_schd row`
        : `flight ${m.flid}: has a flight_schd row but is not in the log`;
    case 'outbox': {
      const what = `msg_event ${m.target} of position ${m.position}${m.seq === null ? '' : ` seq ${m.seq}`}${m.flid === null ? '' : ` flight ${m.flid}`}`;
      return m.problem === 'missing'
        ? `outbox: ${what} is missing`
        : `outbox: ${what} has no decision that implies it (log: ${m.decision ?? 'none'})`;
    }
    case 'reference':
      if ('column' in m) return `reference ${m.table} ${m.key}: ${m.column}: log ${show(m.log)}, row ${show(m.row)}`;
      return m.problem === 'missing-row'
        ? `reference ${m.table} ${m.key}: in the log but has no row`
        : `reference ${m.table} ${m.key}: has a row but is not in the log`;
    case 'writebacks':
      return `write-back of message ${m.msgId} (${m.state}): ${m.problem}: log ${show(m.log)}, row ${show(m.row)}`;
    case 'snapshot':
      return `write-model snapshot at position ${m.position}: ${m.part}: log ${show(m.log)}, snapshot ${show(m.row)}`;
  }
}

/** The text report of `msgx verify` (without --json). */
export function formatReport(r: CheckReport): string {
  const lines = [
    `checked ${r.checked.flights} flight(s) at flights position ${r.positions.flights}, ` +
      `${r.checked.decisions} decision(s) at outbox position ${r.positions.outbox}, ` +
      `${r.checked.messages} terminal message(s)` +
      (r.checked.reference === null ? '' : `, ${r.checked.reference} reference row(s) at reference position ${r.positions.reference}`) +
      (r.checked.snapshot === undefined ? '' : `, ${r.checked.snapshot.flights} flight(s) of the write-model snapshot at position ${r.checked.snapshot.position}`) +
      `; log at ${r.positions.log}; ${r.seconds.toFixed(1)} s`,
  ];
  for (const m of r.mismatches) lines.push(describeMismatch(m));
  lines.push(r.mismatches.length === 0 ? 'consistent: no mismatches' : `${r.mismatches.length} mismatch(es)`);
  return lines.join('\n') + '\n';
}
