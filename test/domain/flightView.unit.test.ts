import { describe, expect, it } from 'vitest';
import { evolve } from '../../src/domain/evolve.ts';
import { emptyFields } from '../../src/domain/fields.ts';
import type { FlightState } from '../../src/domain/flight.ts';
import { toFlightView } from '../../src/domain/flightView.ts';
import { emptyLists } from '../../src/domain/lists.ts';

const flight = (fields: Partial<FlightState> = {}): FlightState => ({
  ...evolve(undefined, { type: 'FlightCreated', flid: '1', operationDay: '2025-03-14', fields: emptyFields(), lists: emptyLists() })!,
  ...fields,
});

describe('toFlightView', () => {
  it('maps direction, derived flags and grouped fields to the GraphQL names', () => {
    const v = toFlightView(flight({
      direction: 'A', cancelTime: '2025-03-14T02:00:00.000Z', linkAirline: 'CA', linkFlightNo: 'CA1', linkFlid: '2',
      agentPassenger: 'P', agentField: null, agentMaintenance: 'M', masterFlid: '7',
    }));
    expect(v).toMatchObject({
      direction: 'ARRIVAL', cancelled: true, linkedFlight: { airline: 'CA', flightNo: 'CA1', flid: '2' },
      handlingAgents: { passenger: 'P', field: null, maintenance: 'M' }, masterFlid: '7', operationDay: '2025-03-14',
    });
    expect(toFlightView(flight({ direction: 'D' })).direction).toBe('DEPARTURE');
  });

  it('leaves grouped fields null when all their parts are null', () => {
    expect(toFlightView(flight())).toMatchObject({ direction: null, cancelled: false, linkedFlight: null, handlingAgents: null });
  });

  it('renames the lists and tags route points with their kind', () => {
    const point = { seq: 1, airport: 'PEK', scheduledArrival: null, scheduledDeparture: null };
    const alloc = { seq: 1, code: 'X', class: null, kind: null, scheduledStart: null, scheduledEnd: null, actualStart: null, actualEnd: null };
    const v = toFlightView(flight({ counters: [alloc], belts: [{ ...alloc, code: 'B' }], route: [point], adjacent: [{ ...point, airport: 'TAO' }] }));
    expect(v.checkInCounters).toEqual([alloc]);
    expect(v.baggageBelts).toEqual([{ ...alloc, code: 'B' }]);
    expect(v.routePoints).toEqual([{ ...point, kind: 'ERUT' }]);
    expect(v.adjacentStations).toEqual([{ ...point, airport: 'TAO', kind: 'ROUT' }]);
  });

  it('renders instants in the airport zone when asked', () => {
    const v = toFlightView(flight({
      scheduledTime: '2025-03-14T01:30:00.000Z',
      delays: [{ code: '93', start: '2025-03-14T02:40:00.000Z', durationMinutes: 25 }],
    }), { tz: 'Asia/Shanghai' });
    expect(v.scheduledTime).toBe('2025-03-14T09:30:00+08:00');
    expect(v.delays[0]!.start).toBe('2025-03-14T10:40:00+08:00');
    expect(toFlightView(flight({ scheduledTime: '2025-03-14T01:30:00.000Z' })).scheduledTime).toBe('2025-03-14T01:30:00.000Z');
  });
});
