/**
 * SQL only with $n parameters (docs/security.md §11): no value is ever spliced into SQL text. Every `${…}` in
 * SQL-looking text under src/ must be on the allow-list below — identifiers and fragments that are
 * constants of ours (table and schema names, column lists built from constant column specs,
 * catalog-produced DDL, escaped identifiers). A new splice fails this test until it is either
 * turned into a parameter or, if it really is an identifier, added here with its reason.
 */
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './support/sourceFiles.ts';
import { findSqlSplices, type Splice } from './support/sqlTemplates.ts';

/** file → spliced expressions (as written) that are identifier-only, with why. */
const IDENTIFIER_ONLY: Readonly<Record<string, readonly string[]>> = {
  // History archive (docs/operations.md "Archive a month"): table and key names from the constant
  // HISTORY_TABLES specs (src/log/historyMonths.ts); partitions named from them plus a month checked
  // as YYYY-MM (parseMonth, or read back from pg_inherits by the same pattern); `f.table` is one of
  // history_archive.tbl, which a CHECK holds to the three table names, and so is `p.table` (the
  // drop's list of those files' tables, with `p.partition` their month's partitions).
  'src/operations/archive/archiveFile.ts': ['spec.rowKey', 'spec.partitionKey', 'partition'],
  'src/operations/archive/archiveHistory.ts': ['spec.table', 'spec.partitionKey', 'im', 'partition', 'p.table', 'p.partition'],
  // …and `detached`, the DEFAULT partition of one of them (`${spec.table}_default`).
  'src/log/historyMonths.ts': ['partition', 'spec.table', 'spec.partitionKey', 'spec.rowKey', 'detached'],
  'src/operations/archive/restoreMonth.ts': ['partition', 'spec.table', 'spec.partitionKey'],
  // The constant SELECT … FROM CMINMSGS head of the mailbox adapters' queries.
  'src/platform/mailbox/mysqlMailbox.ts': ['select'],
  'src/platform/mailbox/pgMailbox.ts': ['select'],
  // Column lists and WHERE text: module constants built from the constant column specs of flightRows.ts.
  'src/read-api/sql/selectBoard.ts': ['COLUMNS', 'WHERE', 'PAGE', 'DOC_COLUMNS'],
  'src/log/readForMessages.ts': ['COLUMNS'],
  // …and the module's constant "is this decision big" fragments (bigOr/isBig), called with constant
  // column texts and a parameter placeholder ('$3', '$4'): the threshold itself travels as that $n.
  'src/log/readDecisions.ts': [
    'DECISION_RECORD_COLUMNS', "bigOr(\"payload->'changes'\", '$3')", "isBig('$3')", "bigOr(\"payload->'changes'\", '$4')", "isBig('$4')",
  ],
  'src/write/jobs/archiveProcState.ts': ['COLUMNS'],
  'src/write/delivery/outboxRows.ts': ['OUTBOX_COLUMNS', 'CLAIM_FENCE', 'CLAIM_SET', 'CLAIMED'], // the module's constant claim fragments
  'src/write/delivery/schdBatch.ts': ['OUTBOX_COLUMNS', 'CLAIM_FENCE', 'CLAIM_SET', 'CLAIMED'],
  'src/projections/insertOutbox.ts': ['unnestOf(COLUMNS)'],
  // Statements made of the module's constant CTE texts (values travel as $n; see their comments).
  // `when` is one of two constant conditions, by its type ('true', or appendWithOutcomes' IF_GO).
  'src/log/appendDecisions.ts': ['unnestOf(COLUMNS, 3)', 'when'],
  'src/log/appendWithOutcomes.ts': ['LOCKS', 'appendCtes(IF_GO)', 'ADVANCE_PROC_STATES', 'RECORD_META', 'IF_GO', 'APPEND_NOTIFY', 'ALL_ADVANCED'],
  'src/write/ingest/pollOnce.ts': ['COPY_CTES'],
  // …and the cursor lock, which travels with BEGIN and so takes no parameters: the source name
  // (the constant 'CMINMSGS') as an escaped literal.
  // The copy's CTEs are one constant text with an optional constant guard (IF_LOCKED) and the
  // constant conflict clause that goes with it (SKIP_COPIED, or none).
  'src/write/ingest/copyInbox.ts': ['COPY_CTES', 'pg.escapeLiteral(source)', 'guard', 'onConflict', 'copyCtes(IF_LOCKED)'],
  // Table names from FlightTables (flightTables.ts: schema public or msgx_rebuild + a constant table name).
  'src/read-api/sql/selectFlightLists.ts': ['selectList(spec.columns)', 'LIVE_TABLES.detail[table]'],
  'src/projections/loadFlights.ts': ['selectList(FLIGHT_COLUMNS)', 'tables.flight', 'selectList(spec.columns)', 'tables.detail[spec.table]'],
  'src/consistency/flightCheck.ts': ['selectList(FLIGHT_COLUMNS)', 'LIVE_TABLES.flight', 'selectList(spec.columns)', 'LIVE_TABLES.detail[spec.table]', 'where'],
  'src/consistency/referenceCheck.ts': ['selectList(spec.columns)', 'spec.table'], // constant column specs and table names
  'src/consistency/writebackCheck.ts': ['TERMINAL', 'BAD', 'EXPECTED_STATUS', 'SHADOW_DECIDED'], // the module's constant SQL fragments
  'src/projections/writeFlights.ts': [
    'tables.flight', 'table', 'columnNames(columns)', 'unnestOf(columns, params.length + 1)', 'tail', 'tables.detail[spec.table]',
  ],
  'src/projections/snapLog.ts': ['table', 'unnestOf(COLUMNS)'], // table = FlightTables.snapLog
  // Reference read models: column lists and UPDATE SET built from the module's constant column specs.
  'src/projections/reference/writeReference.ts': [
    'names(RECORD_COLUMNS)', 'unnestOf(RECORD_COLUMNS)', "updates(RECORD_COLUMNS, ['kind', 'code'])",
    'names(FLIGHT_COLUMNS)', 'unnestOf(FLIGHT_COLUMNS)', 'names(SEASON_COLUMNS)', 'unnestOf(SEASON_COLUMNS)', "updates(SEASON_COLUMNS, ['season'])",
  ],
  // Constant SELECT lists, WHERE and ORDER BY texts of the module (values travel as $n).
  'src/read-api/sql/selectReference.ts': ['RECORD_COLUMNS', 'WHERE', "ISO('max(updated_at)')", 'SEASONAL_WHERE', 'SEASONAL_ORDER'],
  // Rebuild: constant schema names, the constant projection table list, and DDL printed by the
  // catalog itself (pg_get_constraintdef) with quoted constraint names.
  'src/projections/rebuild/switchTables.ts': ["tables.map((t) => `public.${t}`).join(', ')", 't', 'RETIRED_SCHEMA', 'SCRATCH_SCHEMA'],
  'src/projections/rebuild/scratchTables.ts': ['SCRATCH_SCHEMA', 'k.table', 'quote(k.name)', 'k.def', 't'],
  'src/projections/rebuild/rebuildFlights.ts': ['SCRATCH_SCHEMA', 't', 'SCRATCH.snapLog', 'LIVE_TABLES.snapLog', 'SCRATCH.flight'], // ANALYZE of the constant table list; the constant snap-log and flight tables
  // LISTEN/UNLISTEN take no parameters: channel names are constants, escaped where not literal.
  'src/platform/listen.ts': ['pg.escapeIdentifier(ch)'],
};

function offenders(splices: readonly Splice[]): string[] {
  return splices
    .filter((s) => s.kind === 'concatenation' || !(IDENTIFIER_ONLY[s.file] ?? []).includes(s.expression))
    .map((s) => `${s.file}:${s.line} ${s.kind === 'template' ? `\${${s.expression}}` : s.expression}`);
}

describe('SQL parameterisation', () => {
  it('splices nothing but allow-listed identifiers into SQL text anywhere in src/', async () => {
    const splices = findSqlSplices(await sourceFiles('src'));
    expect(splices.length).toBeGreaterThan(10); // the scan does see the known identifier splices
    expect(offenders(splices)).toEqual([]);
  });

  it('keeps the allow-list minimal: every entry is still used', async () => {
    const splices = findSqlSplices(await sourceFiles('src'));
    const used = new Set(splices.map((s) => `${s.file} ${s.expression}`));
    const stale = Object.entries(IDENTIFIER_ONLY).flatMap(([file, exprs]) => exprs.filter((e) => !used.has(`${file} ${e}`)).map((e) => `${file} ${e}`));
    expect(stale).toEqual([]);
  });

  it('flags a value spliced into SQL, in a template or by concatenation', () => {
    const sample = {
      file: 'src/sample.ts',
      text: [
        'export async function f(db, id: string, name: string, day: string) {',
        '  await db.query(`SELECT * FROM flight_schd WHERE flid = ${id}`);',
        "  await db.query('DELETE FROM proc_state WHERE msg_id = ' + id);",
        '  const sql = `UPDATE flight_schd SET status = \'${name}\' WHERE flid = $1`;',
        '  await db.query(`LOCK TABLE ${name}`);',
        "  await db.query('SELECT 1 FROM flight_schd WHERE operation_day = $1', [day]);", // fine: a parameter
        '  log.info(`SELECT took ${id} ms`);', // not SQL: no FROM, not a query argument
        '  return sql;',
        '}',
      ].join('\n'),
    };
    expect(offenders(findSqlSplices([sample]))).toEqual([
      'src/sample.ts:2 ${id}',
      "src/sample.ts:3 'DELETE FROM proc_state WHERE msg_id = ' + id",
      'src/sample.ts:4 ${name}',
      'src/sample.ts:5 ${name}',
    ]);
  });
});
