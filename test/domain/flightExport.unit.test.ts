import { describe, expect, it } from 'vitest';
import { csvHeader, csvLine, EXPORT_COLUMNS, exportRecord, ndjsonLine } from '../../src/domain/flightExport.ts';
import { ENVELOPE_FIELDS } from '../../src/domain/flightDiff.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { toFlightView } from '../../src/domain/flightView.ts';
import { emptyFields } from '../../src/domain/fields.ts';
import { emptyLists } from '../../src/domain/lists.ts';

const flight = (over: Partial<FlightState> = {}): FlightState => ({
  ...emptyFields(),
  flid: '880001', ffid: 'CA-CA1501-A-14MAR250930-D', operationDay: '2025-03-14', airline: 'CA', flightNo: 'CA1501', direction: 'A',
  scheduledTime: '2025-03-14T01:30:00.000Z', estimatedTime: null, actualTime: null, prevActualDeparture: null,
  serviceType: null, flightNature: null, aircraftType: null, registration: null, terminal: null, currentStand: null,
  linkAirline: null, linkFlightNo: null, linkFlid: null, masterAirline: null, masterFlightNo: null, masterFlid: null,
  boardingOpen: null, lastCall: null, boardingClosed: null, cancelTime: null, status: null, publicStatus: null, publicRemark: null,
  diversionAirport: null, diversionDirection: null, returnType: null, agentPassenger: null, agentField: null, agentMaintenance: null,
  deleted: false, deletedReason: null, stateVersion: 3, lastPosition: '7', lastMsgId: '12', updatedAt: '2025-03-14T02:00:00.000Z',
  ...emptyLists(), ...over,
});

describe('flight export', () => {
  it('has a column for every Flight field but the log envelope, grouped fields as dotted columns, and no other', () => {
    const view = toFlightView(flight({ linkAirline: 'MU', agentField: 'X', abnormalReason: 'TECH', vipPassengers: 1, portCode: 'O' })) as unknown as Record<string, unknown>;
    const expected = Object.entries(view)
      .filter(([k]) => !(ENVELOPE_FIELDS as readonly string[]).includes(k))
      .flatMap(([k, v]) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).map((s) => `${k}.${s}`) : [k]));
    expect([...EXPORT_COLUMNS].sort()).toEqual(expected.sort());
    expect(new Set(EXPORT_COLUMNS).size).toBe(EXPORT_COLUMNS.length);
    expect(EXPORT_COLUMNS.slice(0, 3)).toEqual(['flid', 'operationDay', 'ffid']);
  });

  it('shows instants in airport time, flattens grouped values, keeps lists, and leaves the envelope out', () => {
    const r = exportRecord(flight({ linkAirline: 'MU', linkFlightNo: 'MU1', stands: [{ seq: 1, code: 'A1', class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null }] }), 'Asia/Shanghai');
    expect(r.scheduledTime).toBe('2025-03-14T09:30:00+08:00');
    expect(r['linkedFlight.airline']).toBe('MU');
    expect(r['linkedFlight.flid']).toBeNull();
    expect(r['handlingAgents.field']).toBeNull();
    expect(r.stands).toHaveLength(1);
    expect(Object.keys(r)).toEqual([...EXPORT_COLUMNS]);
    expect(JSON.parse(ndjsonLine(r))).not.toHaveProperty('updatedAt');
  });

  it('writes CSV with a header in column order, empty nulls and RFC 4180 quoting', () => {
    expect(csvHeader()).toBe(EXPORT_COLUMNS.join(',') + '\r\n');
    const line = csvLine(exportRecord(flight({ publicRemark: 'late, "really"', delays: [] }), 'UTC'));
    const cells = line.trimEnd();
    expect(cells.startsWith('880001,2025-03-14,CA-CA1501-A-14MAR250930-D,CA,CA1501,ARRIVAL,2025-03-14T01:30:00+00:00,,')).toBe(true);
    expect(cells).toContain(',"late, ""really""",');
    expect(cells).toContain(',[],');
    expect(line.endsWith('\r\n')).toBe(true);
  });
});
