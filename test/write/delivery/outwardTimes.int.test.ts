/**
 * interface.md: "every outward time carries the airport offset, and Kafka and NDJSON payloads
 * match the API". Corpus 01 and 04 (every time-bearing subtype) through the whole app with the
 * NDJSON sink; then, for every flight, its newest `schd` record shows each time exactly as
 * GraphQL's `flight` does, and each of its `msg` records (recordedAt and change) is what
 * `flightHistory` shows for that decision.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { waitFor } from '../../support/waitFor.ts';
import { fileApp } from '../../support/testApp.ts';
import { readScenario } from '../../support/corpusDir.ts';

const ALLOC = '{ seq scheduledStart scheduledEnd actualStart actualEnd }';
const ROUTE = '{ seq scheduledArrival scheduledDeparture }';
/** Every DateTime of `Flight` (graphql.md), with the keys that identify list items. */
const FLIGHT_TIMES = `flid scheduledTime estimatedTime actualTime prevActualDeparture boardingOpen lastCall boardingClosed
  cancelTime updatedAt stands ${ALLOC} gates ${ALLOC} checkInCounters ${ALLOC} baggageBelts ${ALLOC} chutes ${ALLOC}
  bridges { seq time } chocks { seq time } delays { code start } services { code start end } routePoints ${ROUTE}
  adjacentStations ${ROUTE} port { time } pushbacks { seq time } tows { seq time }
  milestones { estimatedOffBlock targetOffBlock calculatedOffBlock calculatedTakeOff inboundEstimate approach startUpRequest
    startUp prevEstimatedDeparture prevActualDeparture nextEstimatedArrival nextActualArrival }`;
const OFFSET_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?\+08:00$/;

interface NdjsonLine { key: string | null; value: unknown; headers: Record<string, string> }
interface MsgValue { flid: string | null; position: string; recordedAt: string; change: unknown }

const app = fileApp('outward_times');

const lines = async (topic: string): Promise<NdjsonLine[]> =>
  (await readFile(path.join(app.cfg.dataDir, 'out', `${topic}.ndjson`), 'utf8')).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as NdjsonLine);

/** `value` cut down to the keys (and array items) that `shape` has. */
function project(value: unknown, shape: unknown): unknown {
  if (Array.isArray(shape)) return Array.isArray(value) ? value.slice(0, shape.length).map((v, i) => project(v, shape[i])) : value;
  if (shape !== null && typeof shape === 'object' && value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(shape).map((k) => [k, project((value as Record<string, unknown>)[k], (shape as Record<string, unknown>)[k])]));
  }
  return value;
}
const strings = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(strings) : v !== null && typeof v === 'object' ? Object.values(v).flatMap(strings) : [];

it("a flight's times in its Kafka records equal the GraphQL API's values for the same flight", async () => {
  const xmls = [...readScenario('01-plan-and-operations').files, ...readScenario('04-whole-interface').files].map((f) => f.xml);
  await app.send(xmls);
  await app.drained('corpus 01 and 04 decided');
  await waitFor(async () => (await app.rt.pool.query("SELECT 1 FROM msg_event WHERE state <> 'SENT'")).rowCount === 0, { what: 'every record written' });

  const schd = new Map<string, unknown>();
  for (const line of await lines('schd')) for (const view of line.value as { flid: string }[]) schd.set(view.flid, view);
  const msg = (await lines('msg')).map((l) => l.value as MsgValue);
  expect(schd.size).toBeGreaterThan(5);

  let times = 0;
  for (const [flid, view] of schd) {
    const { data, errors } = await app.gql(
      `query($flid: ID!) { flight(flid: $flid) { ${FLIGHT_TIMES} }
         flightHistory(flid: $flid, first: 100) { edges { node { position recordedAt changes { flid data } } } } }`,
      { flid },
    );
    expect(errors).toBeUndefined();
    // schd: the flight's newest record, time by time, as the API shows the flight.
    expect(project(view, data.flight)).toEqual(data.flight);
    const shown = strings(data.flight).filter((s) => OFFSET_TIME.test(s));
    times += shown.length;

    // msg: every change of the flight, with its decision's recordedAt, as flightHistory shows it
    // (the history also lists a plan's keyless summary; msg has it without a key).
    const history = (data.flightHistory.edges as { node: { position: string; recordedAt: string; changes: { flid: string | null; data: string }[] } }[])
      .map((e) => e.node).sort((a, b) => Number(a.position) - Number(b.position));
    const records = msg.filter((m) => m.flid === flid);
    expect(records.length).toBeGreaterThan(0);
    expect(records.map((m) => [m.position, m.recordedAt, m.change])).toEqual(
      history.flatMap((n) => n.changes.filter((c) => c.flid === flid).map((c) => [n.position, n.recordedAt, JSON.parse(c.data)])),
    );
  }
  // Plenty of times were compared, and each carries the airport offset; none is a UTC `…Z`.
  expect(times).toBeGreaterThan(50);
  const all = [...schd.values(), ...msg].flatMap(strings);
  expect(all.filter((s) => /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(s))).toEqual([]);
}, 180_000);
