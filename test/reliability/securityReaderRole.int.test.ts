/**
 * Least privilege (migration 050_reader_role.sql): a LOGIN user in role `msgx_reader` — what an
 * operator gives the read API through MSGX_READ_DATABASE_URL — can read the read models and the
 * audit tables and nothing else, and can write nothing.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlState, sqlState } from '../../src/platform/db.ts';
import { PG_MIGRATIONS_DIR } from '../../src/platform/migrate.ts';
import { createTestDatabase, withAdminClient, type TestDatabase } from '../support/databases.ts';
import { appendBatch } from '../support/decisions.ts';
import { createHarness } from '../read-api/support/harness.ts';
import { flight, insertFlights, insertMessage } from '../read-api/support/fixtures.ts';
import { sourceFiles } from './support/sourceFiles.ts';
import { createLoginRole, TEST_ROLE_PREFIX, type LoginRole } from './support/pgRoles.ts';

/** The tables 050 grants SELECT on (the read API's whole view of the database). */
const READABLE = [
  'flight_schd', 'flight_stand', 'flight_gate', 'flight_counter', 'flight_belt', 'flight_chute',
  'flight_bridge', 'flight_chock', 'flight_delay', 'flight_service', 'flight_route_point',
  'schd_snap_log', 'decision_event', 'inbox_message', 'proc_state', 'proc_state_hst',
  'inbox_cursor', 'inbox_gap', 'msg_event', 'projection_checkpoint', 'req_track', 'pipeline_lock',
  'inbox_id_range', 'consistency_check', 'writer_fence',
  // 072: the whole interface's detail lists (VIPF, PSHT, TIPT).
  'flight_vip', 'flight_pushback', 'flight_tow',
  // 100: the Corrections that superseded a message's outcome (message(id) shows them).
  'correction_supersedes',
  // 080: the reference read models
  'reference_record', 'seasonal_flight', 'seasonal_season',
  // 110: the run mode (pipeline.mode / pipeline.shadow), readable by default privileges
  'run_mode',
  // 130: progress of rebuilds and re-decisions (Query.operationProgress, the console)
  'operation_progress',
  // 280: the archived months (message(id) names an archived message's file); the history
  // tables' monthly partitions carry no grant (a read through the parent needs none).
  'history_archive',
].sort();

async function refusal(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run();
    return 'allowed';
  } catch (err) {
    return sqlState(err);
  }
}

/** Every attempt is refused with insufficient_privilege (the outcome of each is named in a failure). */
async function expectAllRefused(attempts: Record<string, () => Promise<unknown>>): Promise<void> {
  const outcome: Record<string, string | undefined> = {};
  for (const [name, run] of Object.entries(attempts)) outcome[name] = await refusal(run);
  expect(outcome).toEqual(Object.fromEntries(Object.keys(attempts).map((k) => [k, SqlState.insufficientPrivilege])));
}

describe('read API role msgx_reader', () => {
  let db: TestDatabase;
  let login: LoginRole;
  let reader: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase('reader');
    login = await createLoginRole(db, 'rd', 'msgx_reader');
    reader = new pg.Pool({ connectionString: login.url, max: 2 });
    await db.pool.query(
      `INSERT INTO flight_schd (flid, operation_day, flight_no, state_version, last_position) VALUES (4711, '2025-03-14', 'CA1502', 1, 1)`,
    );
  });
  afterAll(async () => {
    await reader?.end();
    await login?.drop();
    await db?.drop();
  });

  it('is a NOLOGIN role without any attribute beyond that', async () => {
    const { rows } = await db.pool.query(
      `SELECT rolcanlogin, rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls, rolinherit
         FROM pg_roles WHERE rolname = 'msgx_reader'`,
    );
    expect(rows).toEqual([{
      rolcanlogin: false, rolsuper: false, rolcreaterole: false, rolcreatedb: false, rolreplication: false, rolbypassrls: false, rolinherit: true,
    }]);
  });

  it('reads flight_schd and every granted table as the login user', async () => {
    const { rows } = await reader.query<{ flight_no: string; who: string }>('SELECT flight_no, current_user AS who FROM flight_schd WHERE flid = $1', ['4711']);
    expect(rows).toEqual([{ flight_no: 'CA1502', who: login.name }]);
    for (const t of READABLE) {
      expect({ t, state: await refusal(() => reader.query(`SELECT count(*) FROM public.${t}`)) }).toEqual({ t, state: 'allowed' });
    }
  });

  it('holds SELECT on exactly the read tables: no write privilege anywhere, nothing on mailbox', async () => {
    const { rows } = await db.pool.query<{ table_schema: string; table_name: string; privilege_type: string }>(
      `SELECT table_schema, table_name, privilege_type FROM information_schema.role_table_grants
        WHERE grantee = 'msgx_reader' ORDER BY table_name, privilege_type`,
    );
    expect(rows.filter((r) => r.privilege_type !== 'SELECT')).toEqual([]);
    expect(rows.filter((r) => r.table_schema !== 'public')).toEqual([]);
    expect(rows.map((r) => r.table_name)).toEqual(READABLE);
    const schemas = await db.pool.query<{ usage: boolean; create: boolean; mailbox: boolean }>(
      `SELECT has_schema_privilege('msgx_reader', 'public', 'USAGE') AS usage,
              has_schema_privilege('msgx_reader', 'public', 'CREATE') AS create,
              has_schema_privilege('msgx_reader', 'mailbox', 'USAGE') AS mailbox`,
    );
    expect(schemas.rows[0]).toEqual({ usage: true, create: false, mailbox: false });
  });

  it('cannot take the writer\'s advisory key, pg_notify, create temporary tables or large objects (062)', async () => {
    // Database-level ACLs (TEMPORARY) are not copied by CREATE DATABASE … TEMPLATE: apply 062 to
    // this clone as `msgx migrate` does to a real database (it is idempotent).
    await db.pool.query(await readFile(path.join(PG_MIGRATIONS_DIR, '062_reader_least_privilege.sql'), 'utf8'));
    const attempts: Record<string, () => Promise<unknown>> = {
      'writer lock key': () => reader.query('SELECT pg_try_advisory_lock(7735002)'),
      'migrator lock key (xact)': () => reader.query('SELECT pg_try_advisory_xact_lock(7735001)'),
      'pg_notify msgx_projection': () => reader.query("SELECT pg_notify('msgx_projection', 'flights:999999')"),
      'CREATE TEMP TABLE': () => reader.query('CREATE TEMP TABLE squat (x text)'),
      'lo_create': () => reader.query('SELECT lo_create(0)'),
      'lo_from_bytea': () => reader.query("SELECT lo_from_bytea(0, '\\x00')"),
    };
    await expectAllRefused(attempts);
    // the migrating user (the writer) keeps them
    await db.pool.query('SELECT pg_advisory_unlock(7735999), pg_try_advisory_lock(7735999)');
    await db.pool.query('SELECT pg_advisory_unlock(7735999)');
  });

  it('refuses writes with SQLSTATE 42501 (insufficient_privilege)', async () => {
    const now = new Date('2025-03-14T00:00:00Z');
    const attempts: Record<string, () => Promise<unknown>> = {
      'INSERT flight_schd': () => reader.query(
        `INSERT INTO flight_schd (flid, operation_day, state_version, last_position) VALUES ($1, $2, 1, 1)`, ['4712', '2025-03-14']),
      'INSERT decision_event': () => reader.query(
        `INSERT INTO decision_event (position, kind, payload, recorded_at) VALUES ($1, 'Applied', '{}', $2)`, ['999', now]),
      'INSERT inbox_message': () => reader.query(
        `INSERT INTO inbox_message (msg_id, ingested_at, raw_xml) VALUES ($1, $2, '<MSG/>')`, ['999', now]),
      'UPDATE flight_schd': () => reader.query(`UPDATE flight_schd SET flight_no = 'X' WHERE flid = $1`, ['4711']),
      'UPDATE proc_state': () => reader.query(`UPDATE proc_state SET state = 'PENDING'`),
      'UPDATE pipeline_lock': () => reader.query('UPDATE pipeline_lock SET last_position = last_position + 1'),
      'DELETE msg_event': () => reader.query('DELETE FROM msg_event'),
      'DELETE flight_schd': () => reader.query('DELETE FROM flight_schd'),
      'TRUNCATE flight_gate': () => reader.query('TRUNCATE flight_gate'),
      'SELECT … FOR UPDATE pipeline_lock': () => reader.query('SELECT last_position FROM pipeline_lock FOR UPDATE'),
      'SELECT mailbox.cminmsgs': () => reader.query('SELECT count(*) FROM mailbox.cminmsgs'),
      'INSERT mailbox.cminmsgs': () => reader.query(`INSERT INTO mailbox.cminmsgs (cminmsgs_clob_msg) VALUES ('<MSG/>')`),
      'SELECT schema_migration': () => reader.query('SELECT count(*) FROM schema_migration'),
    };
    await expectAllRefused(attempts);
    const { rows } = await db.pool.query('SELECT flight_no FROM flight_schd WHERE flid = 4711');
    expect(rows).toEqual([{ flight_no: 'CA1502' }]);
  });

  it('cannot create tables in public (PostgreSQL 15+ default; see docs/security.md for older servers)', async () => {
    const { rows } = await db.pool.query<{ v: number }>("SELECT current_setting('server_version_num')::int AS v");
    if (rows[0]!.v < 150000) return; // PUBLIC may create in public before 15: an operator's REVOKE, documented
    expect(await refusal(() => reader.query('CREATE TABLE public.reader_was_here (x int)'))).toBe(SqlState.insufficientPrivilege);
  });

  it('reads a table the migrating user creates later (default privileges), still without writing it', async () => {
    await db.pool.query('CREATE TABLE public.later_read_model (id int PRIMARY KEY)');
    await db.pool.query('INSERT INTO public.later_read_model VALUES (1)');
    const { rows } = await reader.query('SELECT id FROM public.later_read_model');
    expect(rows).toEqual([{ id: 1 }]);
    expect(await refusal(() => reader.query('INSERT INTO public.later_read_model VALUES (2)'))).toBe(SqlState.insufficientPrivilege);
  });

  it('answers every GraphQL query through the reader login, without an error', async () => {
    await insertFlights(db.pool, [flight('4713', {
      flightNo: 'MU5101',
      gates: [{ seq: 1, code: 'G12', class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }],
    })]);
    await insertMessage(db.pool, { id: '71', xml: '<MSG/>', state: 'DEAD', errorClass: 'MALFORMED', lastError: 'no MSG/META' });
    await appendBatch(db.pool, [{ position: '1', msgId: '71', kind: 'Dead', payload: { errorClass: 'MALFORMED', error: 'no MSG/META', attempt: 1 }, recordedAt: '2025-03-14T01:00:00Z' }]);
    const h = createHarness(reader);
    const r = await h.gql(`{
      flight(flid: "4713") { flid flightNo gates { code } stands { code } delays { code } routePoints { airport } }
      past: flight(flid: "4713", asOf: "2025-03-14T10:00:00+08:00") { flid }
      flights(operationDay: "2025-03-14", first: 5) { totalCount edges { node { flid checkInCounters { code } } } }
      message(id: "71") { state errorClass decisions { kind payload } deliveries { state } }
      flightHistory(flid: "4713") { edges { node { kind } } }
      pipeline { backlog failed dead logPosition projections { name lag } outbox { target pending } head { id } }
    }`);
    expect(r.errors).toBeUndefined();
    expect(r.data?.flight).toMatchObject({ flid: '4713', flightNo: 'MU5101', gates: [{ code: 'G12' }] });
    expect(r.data?.message).toMatchObject({ state: 'DEAD', errorClass: 'MALFORMED', decisions: [{ kind: 'Dead' }] });
  });

  it('covers every table the read API queries', async () => {
    // Table names after FROM / JOIN in src/read-api; CTE names and functions are not tables and drop out.
    const named = new Set<string>();
    for (const f of await sourceFiles('src/read-api')) {
      for (const m of f.text.matchAll(/\b(?:FROM|JOIN)\s+(?:public\.)?([a-z_][a-z0-9_]*)\b/g)) named.add(m[1]!);
    }
    const { rows } = await db.pool.query<{ t: string; sel: boolean }>(
      `SELECT c.relname AS t, has_table_privilege('msgx_reader', c.oid, 'SELECT') AS sel
         FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND c.relname = ANY($1::text[])
        ORDER BY 1`,
      [[...named]],
    );
    expect(rows.length).toBeGreaterThanOrEqual(8); // the scan found the API's tables at all
    expect(rows.filter((r) => !r.sel).map((r) => r.t)).toEqual([]);
  });
});

describe('050_reader_role.sql itself (run with a throwaway role name)', () => {
  const sql = readFile(`${PG_MIGRATIONS_DIR}050_reader_role.sql`, 'utf8');
  const withRole = async (role: string) => (await sql).replaceAll('msgx_reader', role);
  const dbs: TestDatabase[] = [];
  const roles: string[] = [];

  afterAll(async () => {
    // Dropping the databases removes the roles' grants there; then the roles can go.
    await Promise.all(dbs.map((d) => d.drop()));
    for (const r of roles) await withAdminClient((c) => c.query(`DROP ROLE IF EXISTS "${r}"`));
  });

  it('creates the role once when several databases migrate at the same moment', async () => {
    const role = `${TEST_ROLE_PREFIX}race_${process.pid}_${Math.random().toString(36).slice(2, 6)}`;
    roles.push(role);
    const fresh = await Promise.all([1, 2, 3, 4].map(() => createTestDatabase('rdrace')));
    dbs.push(...fresh);
    const text = await withRole(role);
    // Each in its own transaction, as the migration runner does; all BEGIN before any runs, so
    // the later CREATE ROLEs wait for the first one's commit and then find the name taken.
    const clients = await Promise.all(fresh.map((d) => d.pool.connect()));
    try {
      await Promise.all(clients.map((c) => c.query('BEGIN')));
      await Promise.all(clients.map(async (c) => {
        await c.query(text);
        await c.query('COMMIT');
      }));
    } finally {
      clients.forEach((c) => c.release());
    }
    for (const d of fresh) {
      const { rows } = await d.pool.query("SELECT has_table_privilege($1, 'public.flight_schd', 'SELECT') AS ok", [role]);
      expect(rows).toEqual([{ ok: true }]);
    }
    // Idempotent: a second run over an existing role changes nothing and does not fail.
    await fresh[0]!.pool.query(text);
  });

  it('skips with a NOTICE when the migrating user may not create roles', async () => {
    const role = `${TEST_ROLE_PREFIX}nope_${process.pid}_${Math.random().toString(36).slice(2, 6)}`;
    roles.push(role); // never created if the test passes; dropped in case it fails
    const d = await createTestDatabase('rdnope');
    dbs.push(d);
    const limited = await createLoginRole(d, 'mig', null);
    const c = new pg.Client({ connectionString: limited.url });
    const notices: string[] = [];
    c.on('notice', (n) => notices.push(n.message ?? ''));
    await c.connect();
    try {
      await c.query(await withRole(role));
    } finally {
      await c.end();
      await limited.drop();
    }
    expect(notices.some((n) => n.includes(`${role} not created`))).toBe(true);
    const { rows } = await d.pool.query('SELECT count(*)::int AS n FROM pg_roles WHERE rolname = $1', [role]);
    expect(rows).toEqual([{ n: 0 }]);
  });
});
