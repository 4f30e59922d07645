/**
 * Synthetic traffic in the corpus's XML dialect: per operation day one DNLD plan with every flight
 * (with lists), then FLOP operations on random flights (times, stands, lists, status, deletes), and
 * a second DNLD that drops some flights. Deterministic for a seed. Decided with the real domain
 * (corpus.ts#decideMessages) it gives a realistic decision log of any size.
 */
import { rng } from '../../../bench/generate.ts';

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `ddMMMyyHHmm` of a day (UTC date parts used as local airport parts) plus minutes. */
function aodb(day: Date, minutes: number): string {
  const d = new Date(day.getTime() + minutes * 60_000);
  return `${pad(d.getUTCDate())}${MONTHS[d.getUTCMonth()]}${pad(d.getUTCFullYear() % 100)}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}`;
}
const dttm = (day: Date, minutes: number) => {
  const d = new Date(day.getTime() + minutes * 60_000);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}00`;
};

export interface SyntheticOptions {
  days: number;
  flightsPerDay: number;
  /** FLOP messages per day. */
  opsPerDay: number;
  seed?: number;
  firstDay?: string;
  firstFlid?: number;
}

export function syntheticMessages(o: SyntheticOptions): string[] {
  const rand = rng(o.seed ?? 1);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const out: string[] = [];
  let seqn = 500_000;
  const msg = (day: Date, minute: number, type: string, styp: string, body: string) =>
    `<MSG><META><SNDR>AODB</SNDR><SEQN>${++seqn}</SEQN><DTTM>${dttm(day, minute)}</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META>${body}</MSG>`;
  const first = new Date(`${o.firstDay ?? '2025-03-14'}T00:00:00Z`);
  let flid = o.firstFlid ?? 900_000;
  for (let d = 0; d < o.days; d++) {
    const day = new Date(first.getTime() + d * 86_400_000);
    const flights = Array.from({ length: o.flightsPerDay }, (_, i) => ({
      flid: String(flid++), no: `ZH${pad(1000 + ((d * o.flightsPerDay + i) % 9000), 4)}`, sodt: 360 + Math.floor((i * 960) / o.flightsPerDay),
      dir: i % 2 === 0 ? 'A' : 'D',
    }));
    const record = (f: (typeof flights)[number]) =>
      `<FLTR><FLID>${f.flid}</FLID><FFID>ZH-${f.no}-${f.dir}-${aodb(day, f.sodt)}-D</FFID><ALCD>ZH</ALCD><FLNO>${f.no}</FLNO>` +
      `<MVIN>${f.dir}</MVIN><SODT>${aodb(day, f.sodt)}</SODT><FLTY>J</FLTY><FLIN>D</FLIN><ACFT>${pick(['320', '321', '738', '333'])}</ACFT>` +
      `<ROUT RTNO="1"><APCD>${pick(['PEK', 'PVG', 'CAN', 'SZX'])}</APCD><SCDT>${aodb(day, f.sodt - 120)}</SCDT></ROUT>` +
      `<PSDT PSNO="1"><PSST>${pick(['201', '202', '305', 'R31'])}</PSST><STST>${aodb(day, f.sodt - 30)}</STST><STET>${aodb(day, f.sodt + 60)}</STET></PSDT>` +
      `<GTDT GTNO="1"><GATE>G${pad(1 + Math.floor(rand() * 30))}</GATE><PGOT>${aodb(day, f.sodt - 40)}</PGOT><PGCT>${aodb(day, f.sodt - 10)}</PGCT><GTYP>D</GTYP></GTDT>` +
      `<ERUT RTNO="1"><APCD>PEK</APCD><SCDT>${aodb(day, f.sodt - 120)}</SCDT></ERUT><ERUT RTNO="2"><APCD>TAO</APCD><SCAT>${aodb(day, f.sodt)}</SCAT></ERUT></FLTR>`;
    const plan = (fs: typeof flights, minute: number) =>
      msg(day, minute, 'SCHD', 'DNLD', `<SCHD><RECS>${fs.length}</RECS>${fs.map(record).join('')}</SCHD>`);
    out.push(plan(flights, 120));
    const flop = (f: (typeof flights)[number], minute: number) => {
      const head = `<FLID>${f.flid}</FLID>`;
      const t = (m: number) => aodb(day, f.sodt + m);
      switch (pick(['ESTT', 'ACTT', 'STND', 'PSDT', 'GTDT', 'DELY', 'SRVT', 'CHOT', 'FTSS', 'CNCL', 'ABTM', 'ESTT'])) {
        case 'ESTT': return msg(day, minute, 'FLOP', 'ESTT', `<FLOP>${head}<ESTT>${t(Math.floor(rand() * 60) - 20)}</ESTT></FLOP>`);
        case 'ACTT': return msg(day, minute, 'FLOP', 'ACTT', `<FLOP>${head}<ACTT>${t(Math.floor(rand() * 40))}</ACTT></FLOP>`);
        case 'STND': return msg(day, minute, 'FLOP', 'STND', `<FLOP>${head}<STND>${pick(['201', '202', '305', 'R31', ''])}</STND></FLOP>`);
        case 'PSDT': return msg(day, minute, 'FLOP', 'PSDT', `<FLOP>${head}<PSDT PSNO="1"><PSST>${pick(['201', '202'])}</PSST><STST>${t(-30)}</STST><STET>${t(20)}</STET></PSDT><PSDT PSNO="2"><PSST>R31</PSST><STST>${t(25)}</STST><STET>${t(90)}</STET></PSDT></FLOP>`);
        case 'GTDT': return msg(day, minute, 'FLOP', 'GTDT', `<FLOP>${head}<GTDT GTNO="1"><GATE>G${pad(1 + Math.floor(rand() * 30))}</GATE><PGOT>${t(-40)}</PGOT><PGCT>${t(-10)}</PGCT><GOTM>${t(-38)}</GOTM><GTYP>D</GTYP></GTDT></FLOP>`);
        case 'DELY': return msg(day, minute, 'FLOP', 'DELY', `<FLOP>${head}<DELY CODE="93" STRT="${t(0)}" DURA="00${pad(10 + Math.floor(rand() * 40))}"/><DELY CODE="81" STRT="${t(0)}" DURA="0010"/></FLOP>`);
        case 'SRVT': return msg(day, minute, 'FLOP', 'SRVT', `<FLOP>${head}<SRVT><SRTC>CAT</SRTC><SRQT>${1 + Math.floor(rand() * 3)}</SRQT><SRST>${t(-50)}</SRST><SRET>${t(-20)}</SRET><SRPR>SKYCHEF</SRPR></SRVT><SRVT><SRTC>CLN</SRTC><SRQT>1</SRQT></SRVT></FLOP>`);
        case 'CHOT': return msg(day, minute, 'FLOP', 'CHOT', `<FLOP>${head}<CHOT CSNO="1"><CHTM>${t(2)}</CHTM><CHID>201</CHID><CHST>ON</CHST></CHOT></FLOP>`);
        case 'FTSS': return msg(day, minute, 'FLOP', 'FTSS', `<FLOP>${head}<FTSS>${pick(['ONB', 'DLY', 'ARR', 'DEP'])}</FTSS></FLOP>`);
        case 'CNCL': return msg(day, minute, 'FLOP', 'CNCL', `<FLOP>${head}<CNCL>${rand() < 0.5 ? t(-60) : ''}</CNCL></FLOP>`);
        default: return msg(day, minute, 'FLOP', 'ABTM', `<FLOP>${head}<ABTM ASNO="1"><ABDG>201A</ABDG><ABOP>A</ABOP><AOTM>${t(3)}</AOTM></ABTM></FLOP>`);
      }
    };
    for (let k = 0; k < o.opsPerDay; k++) {
      const f = pick(flights);
      out.push(rand() < 0.01 ? msg(day, 300, 'FLOP', 'FDEL', `<FLOP><FLID>${f.flid}</FLID><FDEL/></FLOP>`) : flop(f, 300 + Math.floor((k * 600) / o.opsPerDay)));
    }
    // Evening plan without ~5% of the flights: they are deleted by the snapshot.
    out.push(plan(flights.filter(() => rand() > 0.05), 1000));
  }
  return out;
}
