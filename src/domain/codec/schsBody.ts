/**
 * Seasonal schedule bodies (SCHS DNLD/RESP, reference.md):
 *
 *   <SCHS><SNAM>W24</SNAM><SDAT>27OCT24</SDAT><EDAT>29MAR25</EDAT><RECS>2</RECS><FLTR>…</FLTR>…</SCHS>
 *
 * Dates are `ddMMMyy` (month in any case), times `HHmm` local and kept as sent. A record whose
 * period (STDT–EDDT) is missing, not a date or reversed, or whose DYOP is not 7 characters of
 * 0–7, is skipped and listed; the season itself needs SNAM (else CODEC_ERROR).
 */
import type { Meta, SeasonalMessage, SeasonalRecordSkipped } from '../message.ts';
import type { SeasonalFlight, SeasonalRoutePoint } from '../reference/changes.ts';
import type { ReferenceKindInfo, SeasonalStyp } from '../reference/kinds.ts';
import { recordFields, textOf } from '../reference/record.ts';
import { declaredRecordsOf } from './referenceBody.ts';
import { at, fail, rootContext } from './readers.ts';
import { childrenNamed, type XmlElement } from './xmlTree.ts';

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_MONTH_YEAR = /^(\d{2})([A-Za-z]{3})(\d{2})$/;
const DYOP = /^[0-7]{7}$/;

/** `ddMMMyy` → `YYYY-MM-DD` (years 2000–2099), null when it is not a real date. */
export function parseSeasonDate(text: string | null): string | null {
  if (text === null) return null;
  const m = DAY_MONTH_YEAR.exec(text.trim());
  if (!m) return null;
  const month = MONTHS.indexOf(m[2]!.toUpperCase()) + 1;
  const day = Number(m[1]);
  const year = 2000 + Number(m[3]);
  if (month === 0 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The season records keep their elements as reference records do (no list elements declared). */
const FLTR_KIND: ReferenceKindInfo = { kind: 'FLTR', description: 'seasonal flight', key: 'FLNO', name: null, nameLocal: null, lists: ['ROUT', 'ERUT', 'CSOP', 'CSFT'] };

function text(el: XmlElement, name: string): string | null {
  const found = childrenNamed(el, name);
  return found.length === 0 ? null : textOf(found[0]!.text);
}

function routeOf(el: XmlElement): SeasonalRoutePoint[] {
  const erut = childrenNamed(el, 'ERUT');
  const points = erut.length > 0 ? erut : childrenNamed(el, 'ROUT');
  return points
    .map((p, i) => {
      const rtno = p.attrs.get('RTNO');
      return {
        seq: rtno !== undefined && /^\d{1,6}$/.test(rtno.trim()) ? Number(rtno.trim()) : i + 1,
        airport: text(p, 'APCD'),
        scheduledArrival: text(p, 'SCAT'),
        scheduledDeparture: text(p, 'SCDT'),
        dayOffset: text(p, 'SDDC') ?? text(p, 'SADC'),
      };
    })
    .sort((a, b) => a.seq - b.seq);
}

function flightOf(el: XmlElement, seq: number): SeasonalFlight | SeasonalRecordSkipped {
  const stdt = text(el, 'STDT');
  const eddt = text(el, 'EDDT');
  const validFrom = parseSeasonDate(stdt);
  const validTo = parseSeasonDate(eddt);
  if (validFrom === null || validTo === null) {
    return { index: seq, reason: 'invalid-period', detail: `STDT '${stdt ?? ''}' / EDDT '${eddt ?? ''}' must be ddMMMyy dates` };
  }
  if (validFrom > validTo) return { index: seq, reason: 'invalid-period', detail: `STDT ${stdt} is after EDDT ${eddt}` };
  const dyop = text(el, 'DYOP');
  if (dyop === null || !DYOP.test(dyop)) {
    return { index: seq, reason: 'invalid-dyop', detail: `DYOP '${dyop ?? ''}' must be 7 characters of 0-7` };
  }
  const mvin = text(el, 'MVIN')?.toUpperCase() ?? null;
  const maxp = text(el, 'MAXP');
  return {
    seq,
    airline: text(el, 'ALCD'),
    flightNo: text(el, 'FLNO'),
    direction: mvin === 'A' || mvin === 'D' ? mvin : null,
    serviceType: text(el, 'FLTY'),
    flightNature: text(el, 'FLIN'),
    aircraftType: text(el, 'ACFT'),
    terminal: text(el, 'TRML'),
    maxPassengers: maxp !== null && /^\d{1,9}$/.test(maxp) ? Number(maxp) : null,
    validFrom,
    validTo,
    daysOfOperation: dyop,
    scheduledTime: text(el, 'SCHT'),
    route: routeOf(el),
    linkedAirline: text(el, 'TAOP'),
    linkedFlightNo: text(el, 'TAFL'),
    fields: recordFields(el, FLTR_KIND),
  };
}

export function decodeSchsBody(msg: XmlElement, styp: SeasonalStyp, meta: Meta): SeasonalMessage {
  const ctx = rootContext('UTC');
  const bodies = childrenNamed(msg, 'SCHS');
  if (bodies.length !== 1) fail(ctx, 'SCHS', bodies.length === 0 ? 'missing' : 'repeated element');
  const body = bodies[0]!;
  const bctx = at(ctx, 'SCHS');
  const season = text(body, 'SNAM');
  if (season === null) fail(bctx, 'SNAM', 'missing or empty (the season name)');
  const dates = ['SDAT', 'EDAT'].map((name) => {
    const t = text(body, name);
    const d = parseSeasonDate(t);
    if (t !== null && d === null) fail(bctx, name, `invalid date '${t}' (expected ddMMMyy)`);
    return d;
  });
  const flights: SeasonalFlight[] = [];
  const skippedRecords: SeasonalRecordSkipped[] = [];
  childrenNamed(body, 'FLTR').forEach((el, i) => {
    const r = flightOf(el, i + 1);
    if ('reason' in r) skippedRecords.push(r);
    else flights.push(r);
  });
  return {
    type: 'SCHS', styp, meta, season, startDate: dates[0]!, endDate: dates[1]!,
    declaredRecords: declaredRecordsOf(body), flights, skippedRecords,
  };
}
