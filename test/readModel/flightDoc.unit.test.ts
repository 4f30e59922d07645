/**
 * The flight document's shape is pinned to DOC_VERSION: a change to what flightDoc() returns (a
 * field of the view added, renamed, regrouped) must come with a new DOC_VERSION — rows written with
 * the old shape are then served from their tables until `msgx rebuild flights` rewrites them,
 * instead of the fast path serving documents that lack the new field.
 */
import { describe, expect, it } from 'vitest';
import { DOC_VERSION, flightDoc } from '../../src/readModel/flightDoc.ts';
import { decideMessages } from '../projections/support/corpus.ts';
import { activeScenarioNames, readScenario } from '../support/corpusDir.ts';
import { syntheticMessages } from '../projections/support/synthetic.ts';

const flights = [...activeScenarioNames().map((n) => readScenario(n).files.map((f) => f.xml)), syntheticMessages({ days: 1, flightsPerDay: 20, opsPerDay: 120 })]
  .flatMap((xmls) => [...decideMessages(xmls).flights.values()]);

/** Every key path of the documents (list items as `[]`). */
function paths(value: unknown, at: string, into: Set<string>): void {
  if (Array.isArray(value)) return void value.forEach((v) => paths(v, `${at}[]`, into));
  if (value === null || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    into.add(`${at}${at ? '.' : ''}${k}`);
    paths(v, `${at}${at ? '.' : ''}${k}`, into);
  }
}

describe('flightDoc', () => {
  it('has the shape of its DOC_VERSION (change one, change both)', () => {
    const seen = new Set<string>();
    for (const f of flights) paths(flightDoc(f), '', seen);
    expect({ version: DOC_VERSION, shape: [...seen].sort() }).toEqual({ version: 1, shape: SHAPE_V1 });
  });

  it('is the view with its lists in contract order, as JSON', () => {
    const f = flights.find((s) => s.delays.length > 1 || s.services.length > 1) ?? flights[0]!;
    const doc = flightDoc({ ...f, delays: [...f.delays].reverse(), services: [...f.services].reverse() });
    expect(doc).toEqual(flightDoc(f));
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });
});

const SHAPE_V1 = [
  'abnormal', 'abnormal.reason', 'abnormal.remark', 'actualTime', 'adjacentStations',
  'adjacentStations[].airport', 'adjacentStations[].kind', 'adjacentStations[].scheduledArrival',
  'adjacentStations[].scheduledDeparture', 'adjacentStations[].seq', 'aircraftType', 'airline', 'baggageBelts',
  'baggageBelts[].actualEnd', 'baggageBelts[].actualStart', 'baggageBelts[].class', 'baggageBelts[].code',
  'baggageBelts[].kind', 'baggageBelts[].scheduledEnd', 'baggageBelts[].scheduledStart', 'baggageBelts[].seq',
  'boardingClosed', 'boardingOpen', 'bridges', 'bridges[].bridge', 'bridges[].operation', 'bridges[].seq',
  'bridges[].time', 'cancelTime', 'cancelled', 'checkInCounters', 'checkInCounters[].actualEnd',
  'checkInCounters[].actualStart', 'checkInCounters[].class', 'checkInCounters[].code', 'checkInCounters[].kind',
  'checkInCounters[].scheduledEnd', 'checkInCounters[].scheduledStart', 'checkInCounters[].seq', 'chocks',
  'chocks[].onOff', 'chocks[].seq', 'chocks[].stand', 'chocks[].time', 'chutes', 'chutes[].actualEnd',
  'chutes[].actualStart', 'chutes[].class', 'chutes[].code', 'chutes[].kind', 'chutes[].scheduledEnd',
  'chutes[].scheduledStart', 'chutes[].seq', 'currentStand', 'delays', 'delays[].code', 'delays[].durationMinutes',
  'delays[].start', 'deleted', 'deletedReason', 'direction', 'diversionAirport', 'diversionDirection',
  'estimatedTime', 'ffid', 'flid', 'flightNature', 'flightNo', 'gates', 'gates[].actualEnd', 'gates[].actualStart',
  'gates[].class', 'gates[].code', 'gates[].kind', 'gates[].scheduledEnd', 'gates[].scheduledStart', 'gates[].seq',
  'handlingAgents', 'handlingAgents.field', 'handlingAgents.maintenance', 'handlingAgents.passenger', 'lastCall',
  'lastMsgId', 'lastPosition', 'linkedFlight', 'linkedFlight.airline', 'linkedFlight.flid', 'linkedFlight.flightNo',
  'masterAirline', 'masterFlid', 'masterFlightNo', 'maxPassengers', 'milestones', 'milestones.approach',
  'milestones.calculatedOffBlock', 'milestones.calculatedTakeOff', 'milestones.estimatedOffBlock',
  'milestones.inboundEstimate', 'milestones.nextActualArrival', 'milestones.nextEstimatedArrival',
  'milestones.prevActualDeparture', 'milestones.prevEstimatedDeparture', 'milestones.startUp',
  'milestones.startUpRequest', 'milestones.targetOffBlock', 'operationDay', 'port', 'port.code', 'port.time',
  'prevActualDeparture', 'publicRemark', 'publicStatus', 'pushbacks', 'pushbacks[].kind', 'pushbacks[].seq',
  'pushbacks[].stand', 'pushbacks[].time', 'registration', 'remark', 'returnType', 'routePoints',
  'routePoints[].airport', 'routePoints[].kind', 'routePoints[].scheduledArrival',
  'routePoints[].scheduledDeparture', 'routePoints[].seq', 'runway', 'scheduledTime', 'serviceType', 'services',
  'services[].abnormalReason', 'services[].abnormalRemark', 'services[].code', 'services[].end',
  'services[].provider', 'services[].quantity', 'services[].start', 'stands', 'stands[].actualEnd',
  'stands[].actualStart', 'stands[].class', 'stands[].code', 'stands[].kind', 'stands[].scheduledEnd',
  'stands[].scheduledStart', 'stands[].seq', 'stateVersion', 'status', 'terminal', 'tows', 'tows[].seq',
  'tows[].stand', 'tows[].time', 'updatedAt', 'vip', 'vip.passengers', 'vip.reserved', 'vipGuests',
  'vipGuests[].code', 'vipGuests[].escorts', 'vipGuests[].seq',
];
