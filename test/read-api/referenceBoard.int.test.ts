/**
 * The read API's reference fields over rows: every …Info field names the right record on every
 * allocation list (and bridges, delays, services, route, adjacent stations, the flight's own
 * codes); a 2,000-flight board with every info field is a bounded number of statements (counted);
 * referenceKinds, reference(kind, code, search, first, after); VIPL withheld unless exposed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_KIND_LIST } from '../../src/domain/reference/kinds.ts';
import { DETAIL_TABLES } from '../../src/readModel/flightRows.ts';
import { emptyPendingReference, foldReferenceEvents } from '../../src/projections/reference/referenceFold.ts';
import { writeReference } from '../../src/projections/reference/writeReference.ts';
import type { Change } from '../../src/domain/changes.ts';
import { fileDatabase } from '../support/fileDatabase.ts';
import { boardPages, createHarness, type Harness } from './support/harness.ts';
import { flight, insertFlights } from './support/fixtures.ts';

const db = fileDatabase('rapiref');
let h: Harness;
let exposed: Harness;
const N = 2000;
const t = (min: number) => new Date(Date.UTC(2025, 2, 14, 0, min)).toISOString();

/** kind, code → a record whose name says what it is. */
const rec = (kind: string, code: string, extra: Record<string, unknown> = {}): Change => {
  const k = REFERENCE_KIND_LIST.find((x) => x.kind === kind)!;
  const fields: Record<string, unknown> = { [k.key]: code, ...extra };
  if (k.name) fields[k.name] = `${kind} ${code}`;
  if (k.nameLocal) fields[k.nameLocal] = `本地 ${kind} ${code}`;
  return { type: 'ReferenceUpserted', kind, code, fields } as Change;
};

beforeAll(async () => {
  h = createHarness(db.pool);
  exposed = createHarness(db.pool, { exposePersonalData: true });
  const alloc = (seq: number, code: string) => ({ seq, code, class: 'Y', kind: 'D', scheduledStart: t(seq), scheduledEnd: t(seq + 30), actualStart: null, actualEnd: null });
  const flights = Array.from({ length: N }, (_, i) =>
    flight(String(600000 + i), {
      airline: i % 2 ? 'CA' : 'MU', flightNo: `CA${i}`, direction: 'D', scheduledTime: t(i % 1440), aircraftType: '321', registration: 'B1234',
      status: 'DLY', serviceType: 'J', abnormalReason: 'S1', abnormalRemark: 'r',
      vipGuests: [{ seq: 1, code: 'VC1001', escorts: 2 }],
      stands: [alloc(1, 'S1')], gates: [alloc(1, 'S1')], counters: [alloc(1, 'S1'), alloc(2, 'NOPE')], belts: [alloc(1, 'S1')],
      chutes: [alloc(1, 'S1')], bridges: [{ seq: 1, bridge: 'S1', operation: 'A', time: t(5) }],
      delays: [{ code: 'S1', start: t(7), durationMinutes: 10 }],
      services: [{ code: 'S1', quantity: 1, start: t(8), end: t(9), provider: 'X', abnormalReason: null, abnormalRemark: null }],
      route: [{ seq: 1, airport: 'PEK', scheduledArrival: null, scheduledDeparture: t(1) }, { seq: 2, airport: 'TAO', scheduledArrival: t(100), scheduledDeparture: null }],
      adjacent: [{ seq: 1, airport: 'PEK', scheduledArrival: null, scheduledDeparture: t(1) }],
    }),
  );
  await insertFlights(db.pool, flights);
  // The same code 'S1' in every kind: each info field must pick its own kind.
  const changes: Change[] = [
    ...['SLST', 'GLST', 'CLST', 'BLST', 'CHLT', 'ABDG', 'DLYL', 'HLTR', 'ABNR'].map((k) => rec(k, 'S1')),
    rec('AIRL', 'CA', { ICOP: 'CCA', TRML: [{ '@MVIN': 'D', '#text': 'T3' }] }), rec('AIRL', 'MU'), rec('AIRL', 'ZH'),
    rec('AIRL', 'MF'), rec('ARPT', 'PEK'), rec('AIRC', '321'), rec('REGN', 'B1234'), rec('STTS', 'DLY'), rec('FLTL', 'J'),
    { type: 'ReferenceUpserted', kind: 'VIPL', code: 'VC1001', fields: { VPCD: 'VC1001', VFNM: 'Wei', VLNM: 'Zhang', VRNK: '1', VCMN: '13900000000' } },
  ];
  const pending = emptyPendingReference();
  foldReferenceEvents([{ position: '1', msgId: '77', kind: 'Applied', changes, recordedAt: '2025-03-14T01:00:00.000Z' }], pending);
  await writeReference(db.pool, pending);
}, 120_000);

const INFO = 'info { kind code name nameLocal }';
const BOARD = `query($first: Int, $after: String) { flights(operationDay: "2025-03-14", first: $first, after: $after) {
  pageInfo { hasNextPage endCursor }
  edges { node { flid
    airlineInfo { kind code name nameLocal fields } aircraftTypeInfo { name } registrationInfo { code } statusInfo { nameLocal } serviceTypeInfo { name }
    stands { code ${INFO} } gates { code ${INFO} } checkInCounters { code ${INFO} } baggageBelts { code ${INFO} } chutes { code ${INFO} }
    bridges { bridge ${INFO} } delays { code ${INFO} } services { code ${INFO} } routePoints { airport ${INFO} } adjacentStations { airport ${INFO} } } } } }`;

const info = (kind: string, code: string) => ({ kind, code, name: `${kind} ${code}`, nameLocal: `本地 ${kind} ${code}` });

describe('…Info fields', () => {
  it('name the record of each list\'s own kind, null where there is none', async () => {
    const r: any = await h.gql(BOARD, { first: 3 });
    expect(r.errors).toBeUndefined();
    const nodes = r.data.flights.edges.map((e: any) => e.node);
    const mu = nodes.find((n: any) => n.flid === '600000');
    const ca = nodes.find((n: any) => n.flid === '600001');
    expect({ ...ca.airlineInfo, fields: JSON.parse(ca.airlineInfo.fields) }).toEqual({
      ...info('AIRL', 'CA'), fields: { ITOP: 'CA', ICOP: 'CCA', TRML: [{ '@MVIN': 'D', '#text': 'T3' }], ONAM: 'AIRL CA', ONMC: '本地 AIRL CA' },
    });
    expect(mu.airlineInfo.code).toBe('MU');
    expect(ca.aircraftTypeInfo).toEqual({ name: 'AIRC 321' });
    expect(ca.registrationInfo).toEqual({ code: 'B1234' });
    expect(ca.statusInfo).toEqual({ nameLocal: '本地 STTS DLY' });
    expect(ca.serviceTypeInfo).toEqual({ name: 'FLTL J' });
    expect(ca.stands).toEqual([{ code: 'S1', info: info('SLST', 'S1') }]);
    expect(ca.gates).toEqual([{ code: 'S1', info: info('GLST', 'S1') }]);
    expect(ca.checkInCounters).toEqual([{ code: 'S1', info: info('CLST', 'S1') }, { code: 'NOPE', info: null }]);
    expect(ca.baggageBelts).toEqual([{ code: 'S1', info: info('BLST', 'S1') }]);
    expect(ca.chutes).toEqual([{ code: 'S1', info: info('CHLT', 'S1') }]);
    expect(ca.bridges).toEqual([{ bridge: 'S1', info: info('ABDG', 'S1') }]);
    expect(ca.delays).toEqual([{ code: 'S1', info: info('DLYL', 'S1') }]);
    expect(ca.services).toEqual([{ code: 'S1', info: info('HLTR', 'S1') }]);
    expect(ca.routePoints).toEqual([{ airport: 'PEK', info: info('ARPT', 'PEK') }, { airport: 'TAO', info: null }]);
    expect(ca.adjacentStations).toEqual([{ airport: 'PEK', info: info('ARPT', 'PEK') }]);
    const more: any = await h.gql('{ flight(flid: "600001") { abnormal { reason reasonInfo { kind code name } } vipGuests { code info { kind code name fields } } } }');
    expect(more.errors).toBeUndefined();
    expect(more.data.flight.abnormal).toEqual({ reason: 'S1', reasonInfo: { kind: 'ABNR', code: 'S1', name: 'ABNR S1' } });
    const guest = more.data.flight.vipGuests[0];
    expect({ ...guest, info: { ...guest.info, fields: JSON.parse(guest.info.fields) } }).toEqual({
      code: 'VC1001', info: { kind: 'VIPL', code: 'VC1001', name: null, fields: { VPCD: 'VC1001', VRNK: '1' } },
    });
  });

  it('a 2,000-flight board with every info field is a bounded number of statements, whatever the page size', async () => {
    // page (1) + one per detail table + reference records: one per level of resolvers that asks
    // (the flight's own codes, then at most one per detail table) — never one per flight or item.
    const bound = 1 + DETAIL_TABLES.length + 1 + DETAIL_TABLES.length;
    const pages = await boardPages(h, BOARD, 500);
    for (const { flights, statements } of pages) {
      expect(statements.filter((s) => s.includes('reference_record')).length).toBeGreaterThan(0);
      expect(flights.edges.at(-1).node.stands[0].info.name).toBe('SLST S1');
    }
    expect(pages).toHaveLength(N / 500);
    for (const p of pages) expect(p.statements.length).toBeLessThanOrEqual(bound);
    h.db.reset();
    await h.gql(BOARD, { first: 3 });
    expect(h.db.statements.length).toBeLessThanOrEqual(bound);
  });
});

describe('reference queries', () => {
  it('referenceKinds lists all 23 with counts (0 when empty)', async () => {
    const r: any = await h.gql('{ referenceKinds { kind description count lastUpdatedAt lastMsgId } }');
    expect(r.errors).toBeUndefined();
    expect(r.data.referenceKinds.map((k: any) => k.kind)).toEqual(REFERENCE_KIND_LIST.map((k) => k.kind));
    const by = Object.fromEntries(r.data.referenceKinds.map((k: any) => [k.kind, k]));
    expect(by.AIRL).toEqual({ kind: 'AIRL', description: 'airlines', count: 4, lastUpdatedAt: '2025-03-14T09:00:00+08:00', lastMsgId: '77' });
    expect(by.CITY).toEqual({ kind: 'CITY', description: 'cities', count: 0, lastUpdatedAt: null, lastMsgId: null });
  });

  it('reference(kind) is ordered by code and pages with a cursor; code and search filter', async () => {
    const page1: any = await h.gql('{ reference(kind: "AIRL", first: 2) { totalCount pageInfo { hasNextPage endCursor } edges { node { code } } } }');
    expect(page1.data.reference.totalCount).toBe(4);
    expect(page1.data.reference.edges.map((e: any) => e.node.code)).toEqual(['CA', 'MF']);
    const page2: any = await h.gql(`{ reference(kind: "AIRL", first: 2, after: "${page1.data.reference.pageInfo.endCursor}") { pageInfo { hasNextPage } edges { node { code } } } }`);
    expect(page2.data.reference.edges.map((e: any) => e.node.code)).toEqual(['MU', 'ZH']);
    expect(page2.data.reference.pageInfo.hasNextPage).toBe(false);

    const search = async (s: string) =>
      ((await h.gql(`{ reference(kind: "AIRL", search: ${JSON.stringify(s)}) { totalCount edges { node { code } } } }`)) as any).data.reference;
    expect(await search('m')).toEqual({ totalCount: 2, edges: [{ node: { code: 'MF' } }, { node: { code: 'MU' } }] }); // code, any case
    expect(await search('airl z')).toEqual({ totalCount: 1, edges: [{ node: { code: 'ZH' } }] }); // name
    expect(await search('本地 AIRL C')).toEqual({ totalCount: 1, edges: [{ node: { code: 'CA' } }] }); // local name
    expect(await search('%')).toEqual({ totalCount: 0, edges: [] }); // no pattern characters
    const one: any = await h.gql('{ reference(kind: "airl", code: "MU") { totalCount edges { node { code name } } } }');
    expect(one.data.reference).toEqual({ totalCount: 1, edges: [{ node: { code: 'MU', name: 'AIRL MU' } }] });
  });

  it('refuses an unknown kind and a cursor of another kind', async () => {
    const bad: any = await h.gql('{ reference(kind: "XXXX") { totalCount } }');
    expect(bad.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const p: any = await h.gql('{ reference(kind: "AIRL", first: 1) { pageInfo { endCursor } } }');
    const other: any = await h.gql(`{ reference(kind: "ARPT", after: "${p.data.reference.pageInfo.endCursor}") { totalCount } }`);
    expect(other.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('VIPL: only kind, code and VRNK unless MSGX_EXPOSE_PERSONAL_DATA=true', async () => {
    const q = '{ reference(kind: "VIPL") { edges { node { kind code name nameLocal fields } } } }';
    const r: any = await h.gql(q);
    expect(r.data.reference.edges).toHaveLength(1);
    const node = r.data.reference.edges[0].node;
    expect({ ...node, fields: JSON.parse(node.fields) }).toEqual({ kind: 'VIPL', code: 'VC1001', name: null, nameLocal: null, fields: { VPCD: 'VC1001', VRNK: '1' } });
    const e: any = await exposed.gql(q);
    expect(JSON.parse(e.data.reference.edges[0].node.fields)).toMatchObject({ VFNM: 'Wei', VCMN: '13900000000' });
  });
});
