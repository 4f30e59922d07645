import { describe, expect, it } from 'vitest';
import {
  DETAIL_SPECS, FLIGHT_COLUMNS, detailRows, flightRow, flightsFromRows, selectList, type DbRow, type DetailTable,
} from '../../src/readModel/flightRows.ts';
import { columnArrays, unnestOf } from '../../src/platform/sqlBatch.ts';
import { decideMessages } from '../projections/support/corpus.ts';
import { activeScenarioNames, readScenario } from '../support/corpusDir.ts';
import { syntheticMessages } from '../projections/support/synthetic.ts';

/** What PostgreSQL would hand back for cells written in `columns` order (instants as Date). */
function asDbRow(columns: readonly { name: string; type: string }[], cells: readonly unknown[]): DbRow {
  return Object.fromEntries(
    columns.map((c, i) => [c.name, c.type === 'timestamptz' && cells[i] !== null ? new Date(String(cells[i])) : cells[i]]),
  );
}

describe('flightRows', () => {
  const flights = new Map(
    [...activeScenarioNames().map((n) => readScenario(n).files.map((f) => f.xml)), syntheticMessages({ days: 1, flightsPerDay: 20, opsPerDay: 120 })]
      .flatMap((xmls) => [...decideMessages(xmls).flights]),
  );

  it('maps every domain-produced flight to rows and back without loss', () => {
    expect(flights.size).toBeGreaterThan(25);
    const flightRows = [...flights.values()].map((s) => asDbRow(FLIGHT_COLUMNS, flightRow(s)));
    const details = new Map<DetailTable, DbRow[]>(
      DETAIL_SPECS.map((spec) => [spec.table, [...flights.values()].flatMap((s) => detailRows(spec, s)).map((c) => asDbRow(spec.columns, c)).reverse()]),
    );
    expect(flightsFromRows(flightRows, details)).toEqual(flights);
  });

  it('writes one row per list item, stamped with the flight and its updated_at', () => {
    const s = [...flights.values()].find((f) => f.route.length > 0 && f.adjacent.length > 0)!;
    const route = DETAIL_SPECS.find((d) => d.table === 'flight_route_point')!;
    const rows = detailRows(route, s);
    expect(rows).toHaveLength(s.route.length + s.adjacent.length);
    expect(rows.every((r) => r[0] === s.flid && r[r.length - 1] === s.updatedAt)).toBe(true);
    expect(rows.map((r) => r[1])).toEqual([...s.route.map(() => 'ERUT'), ...s.adjacent.map(() => 'ROUT')]);
  });

  it('numbers services by their place in the list', () => {
    const s = [...flights.values()].find((f) => f.services.length > 1)!;
    const spec = DETAIL_SPECS.find((d) => d.table === 'flight_service')!;
    expect(detailRows(spec, s).map((r) => r[1])).toEqual(s.services.map((_, i) => i + 1));
  });

  it('selects dates as text and builds unnest over typed arrays, a jsonb column as one JSON array', () => {
    expect(selectList(FLIGHT_COLUMNS)).toContain('operation_day::text AS operation_day');
    const cols = [{ name: 'a', type: 'bigint' }, { name: 'b', type: 'timestamptz' }, { name: 'j', type: 'jsonb' }] as const;
    expect(unnestOf(cols, 3)).toBe('ROWS FROM (unnest($3::bigint[]), unnest($4::timestamptz[]), jsonb_array_elements($5::jsonb))');
    expect(columnArrays([[1, 'x', '{"k":"a\\"b"}'], [2, null, null]], cols)).toEqual([[1, 2], ['x', null], '[{"k":"a\\"b"},null]']);
    expect(() => columnArrays([[1]], cols)).toThrow(/expected 3/);
  });
});
