/**
 * Deterministic traffic generator: realistic airport days (a DNLD plan, then a FLOP mix over every
 * subtype of the catalogue), optionally sprinkled with duplicates and bad input. Same seed → same
 * messages. Used by the benchmarks and by the reliability tests.
 */

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const AIRLINES = ['CA', 'MU', 'CZ', 'HU', '3U', 'ZH', 'MF', 'SC', 'FM', 'KN'];
const AIRPORTS = ['PEK', 'PVG', 'CAN', 'CTU', 'SZX', 'XIY', 'KMG', 'HGH', 'ICN', 'NRT', 'SIN', 'BKK'];
const TYPES = ['320', '321', '32N', '738', '73H', '333', '330', '789', '359', '77W'];
const STANDS = Array.from({ length: 80 }, (_, i) => String(201 + i));
const GATES = Array.from({ length: 40 }, (_, i) => `G${String(i + 1).padStart(2, '0')}`);

/** A small, fast, seedable PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Minutes since local midnight of `day` → `ddMMMyyHHmm` (airport local time). */
export function aodbTime(day: string, minutes: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d, 0, 0) + minutes * 60_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(t.getUTCDate())}${MONTHS[t.getUTCMonth()]}${p(t.getUTCFullYear() % 100)}${p(t.getUTCHours())}${p(t.getUTCMinutes())}`;
}

function metaTime(day: string, minutes: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d, 0, 0) + minutes * 60_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${t.getUTCFullYear()}${p(t.getUTCMonth() + 1)}${p(t.getUTCDate())}${p(t.getUTCHours())}${p(t.getUTCMinutes())}00`;
}

export interface GenFlight {
  flid: string;
  ffid: string;
  airline: string;
  flightNo: string;
  direction: 'A' | 'D';
  sodtMin: number;
  nature: string;
}

export interface GenOptions {
  seed?: number;
  day?: string;            // YYYY-MM-DD operation day
  flights?: number;
  firstFlid?: number;
  /** FLOP messages per flight (average) */
  flopsPerFlight?: number;
  /** fraction of FLOP messages re-sent with the same identity */
  duplicateRate?: number;
  /** fraction of messages that are malformed / undecodable */
  badRate?: number;
  /** include full lists (PSDT, GTDT, CKDT, CLDT, CHDT, ERUT, ROUT) in the plan */
  fullLists?: boolean;
  sender?: string;
  firstSeqn?: number;
}

export interface GeneratedDay {
  flights: GenFlight[];
  /** the DNLD plan first, then FLOPs in send order */
  messages: string[];
}

const FLOP_KINDS = [
  'ACFT', 'RENO', 'TAOP', 'TRML', 'FLTY', 'FLIN', 'ESTT', 'ACTT', 'PADT', 'BOTM', 'LACL', 'FINT', 'CNCL',
  'FTSS', 'EXSS', 'FDIV', 'FRET', 'STND', 'PSDT', 'GTDT', 'CKDT', 'CLDT', 'CHDT', 'ABTM', 'CHOT', 'DELY',
  'SRVT', 'ERUT', 'FDEL',
  // The whole interface (interface.md)
  'EOBT', 'TOBT', 'COBT', 'CTOT', 'IEST', 'APPT', 'EGSR', 'EGST', 'PEDT', 'NEAT', 'NAAT', 'FLAB', 'HNAG',
  'MAXP', 'REMC', 'RUNW', 'VIPP', 'VIPF', 'PORT', 'PSHT', 'TIPT',
] as const;
// Realistic weights: times and resources dominate; deletes and diversions are rare.
const FLOP_WEIGHTS: Record<(typeof FLOP_KINDS)[number], number> = {
  ACFT: 2, RENO: 3, TAOP: 1, TRML: 1, FLTY: 1, FLIN: 1, ESTT: 12, ACTT: 6, PADT: 3, BOTM: 3, LACL: 3, FINT: 3,
  CNCL: 1, FTSS: 8, EXSS: 4, FDIV: 0.3, FRET: 0.3, STND: 5, PSDT: 5, GTDT: 5, CKDT: 3, CLDT: 3, CHDT: 2, ABTM: 3,
  CHOT: 3, DELY: 3, SRVT: 2, ERUT: 1, FDEL: 0.2,
  EOBT: 3, TOBT: 3, COBT: 1, CTOT: 2, IEST: 1, APPT: 1, EGSR: 1, EGST: 1, PEDT: 1, NEAT: 1, NAAT: 1, FLAB: 0.5,
  HNAG: 0.5, MAXP: 0.5, REMC: 0.5, RUNW: 1, VIPP: 0.3, VIPF: 0.3, PORT: 0.5, PSHT: 1, TIPT: 0.5,
};

export function generateDay(opts: GenOptions = {}): GeneratedDay {
  const r = rng(opts.seed ?? 1);
  const day = opts.day ?? '2025-03-14';
  const n = opts.flights ?? 200;
  const firstFlid = opts.firstFlid ?? 900_000;
  const sender = opts.sender ?? 'AODB';
  let seqn = opts.firstSeqn ?? 1_000_000;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const fullLists = opts.fullLists ?? true;

  const flights: GenFlight[] = [];
  for (let i = 0; i < n; i++) {
    const airline = pick(AIRLINES);
    const direction = i % 2 === 0 ? 'A' : 'D';
    const sodtMin = 6 * 60 + Math.floor(r() * 17 * 60); // 06:00–23:00 local
    const flightNo = `${airline}${1000 + ((i * 7919) % 9000)}`;
    const nature = r() < 0.8 ? 'D' : 'I';
    const ffid = `${airline}-${flightNo}-${direction}-${aodbTime(day, sodtMin)}-${nature}`;
    flights.push({ flid: String(firstFlid + i), ffid, airline, flightNo, direction, sodtMin, nature });
  }

  const header = (typ: string, styp: string, minutes: number, s = seqn++) =>
    `<META><SNDR>${sender}</SNDR><SEQN>${s}</SEQN><DTTM>${metaTime(day, minutes)}</DTTM><TYPE>${typ}</TYPE><STYP>${styp}</STYP></META>`;

  const fltr = (f: GenFlight) => {
    const t = (off: number) => aodbTime(day, f.sodtMin + off);
    const parts = [
      `<FLID>${f.flid}</FLID><FFID>${f.ffid}</FFID><ALCD>${f.airline}</ALCD><FLNO>${f.flightNo}</FLNO>`,
      `<MVIN>${f.direction}</MVIN><SODT>${t(0)}</SODT><FLTY>J</FLTY><FLIN>${f.nature}</FLIN>`,
      `<ROUT RTNO="1"><APCD>${pick(AIRPORTS)}</APCD>${f.direction === 'A' ? `<SCDT>${t(-150)}</SCDT>` : `<SCAT>${t(150)}</SCAT>`}</ROUT>`,
      `<ACFT>${pick(TYPES)}</ACFT><RENO>B${1000 + Math.floor(r() * 9000)}</RENO><TRML>T${1 + Math.floor(r() * 2)}</TRML>`,
      `<STND>${pick(STANDS)}</STND>`,
    ];
    if (fullLists) {
      parts.push(`<PSDT PSNO="1"><PSST>${pick(STANDS)}</PSST><STST>${t(-10)}</STST><STET>${t(80)}</STET></PSDT>`);
      if (f.direction === 'D') {
        parts.push(`<GTDT GTNO="1"><GATE>${pick(GATES)}</GATE><PGOT>${t(-40)}</PGOT><PGCT>${t(-15)}</PGCT><GTYP>D</GTYP></GTDT>`);
        parts.push(`<CKDT CKNO="1"><CHKC>A${10 + Math.floor(r() * 80)}</CHKC><CCLS>Y</CCLS><PCOT>${t(-120)}</PCOT><PCCT>${t(-40)}</PCCT><CTYP>D</CTYP></CKDT>`);
        parts.push(`<CKDT CKNO="2"><CHKC>A${10 + Math.floor(r() * 80)}</CHKC><CCLS>F</CCLS><PCOT>${t(-120)}</PCOT><PCCT>${t(-40)}</PCCT><CTYP>D</CTYP></CKDT>`);
        parts.push(`<CHDT CHNO="1"><CHUT>M${10 + Math.floor(r() * 30)}</CHUT><CCLS>X</CCLS><PCBT>${t(-120)}</PCBT><PCET>${t(-30)}</PCET><CTYP>D</CTYP></CHDT>`);
      } else {
        parts.push(`<CLDT CLNO="1"><BELT>B${10 + Math.floor(r() * 20)}</BELT><BCLS>X</BCLS><PCOT>${t(10)}</PCOT><PCCT>${t(40)}</PCCT><BTYP>D</BTYP></CLDT>`);
      }
      parts.push(`<ERUT RTNO="1"><APCD>${pick(AIRPORTS)}</APCD><SCDT>${t(-150)}</SCDT></ERUT><ERUT RTNO="2"><APCD>TAO</APCD><SCAT>${t(0)}</SCAT></ERUT>`);
    }
    return `<FLTR>${parts.join('')}</FLTR>`;
  };

  const messages: string[] = [];
  messages.push(
    `<?xml version="1.0" encoding="UTF-8"?><MSG>${header('SCHD', 'DNLD', 150)}<SCHD><RECS>${flights.length}</RECS>${flights.map(fltr).join('')}</SCHD></MSG>`,
  );

  const totalWeight = Object.values(FLOP_WEIGHTS).reduce((a, b) => a + b, 0);
  const pickKind = () => {
    let x = r() * totalWeight;
    for (const k of FLOP_KINDS) {
      x -= FLOP_WEIGHTS[k];
      if (x <= 0) return k;
    }
    return 'ESTT' as const;
  };
  const flopCount = Math.round(n * (opts.flopsPerFlight ?? 10));
  const sent: { xml: string; seqn: number; minute: number; kind: string }[] = [];
  for (let i = 0; i < flopCount; i++) {
    const f = pick(flights);
    const kind = pickKind();
    const minute = 160 + Math.floor((i / flopCount) * 20 * 60);
    const s = seqn++;
    const body = flopBody(kind, f, day, r, pick);
    const xml = `<?xml version="1.0" encoding="UTF-8"?><MSG>${header('FLOP', kind, minute, s)}<FLOP><FLID>${f.flid}</FLID><FFID>${f.ffid}</FFID>${body}</FLOP></MSG>`;
    sent.push({ xml, seqn: s, minute, kind });
    messages.push(xml);
    if (opts.duplicateRate && r() < opts.duplicateRate) {
      // same SNDR|TYPE|STYP|SEQN, different content: must be skipped as a duplicate
      messages.push(xml.replace(/<FLOP>/, '<FLOP><!-- resent -->'));
    }
    if (opts.badRate && r() < opts.badRate) {
      const which = r();
      if (which < 0.34) messages.push(`not xml at all ${i}`);
      else if (which < 0.67) messages.push(`<MSG><META><SNDR>AODB</SNDR><DTTM>${metaTime(day, minute)}</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META></MSG>`);
      else
        messages.push(
          `<MSG>${header('FLOP', 'ESTT', minute)}<FLOP><FLID>${f.flid}</FLID><ESTT>99XYZ991234</ESTT></FLOP></MSG>`,
        );
    }
  }
  return { flights, messages };
}

function flopBody(
  kind: (typeof FLOP_KINDS)[number],
  f: GenFlight,
  day: string,
  r: () => number,
  pick: <T>(xs: readonly T[]) => T,
): string {
  const t = (off: number) => aodbTime(day, f.sodtMin + off);
  const jitter = () => Math.floor(r() * 40) - 20;
  switch (kind) {
    case 'ACFT': return `<ACFT>${pick(TYPES)}</ACFT>`;
    case 'RENO': return `<RENO>B${1000 + Math.floor(r() * 9000)}</RENO>`;
    case 'TAOP': return `<TAOP>${f.airline}</TAOP><TAFL>${f.airline}${1000 + Math.floor(r() * 9000)}</TAFL><TAID>${Number(f.flid) + 1}</TAID>`;
    case 'TRML': return `<TRML>T${1 + Math.floor(r() * 2)}</TRML>`;
    case 'FLTY': return `<FLTY>${pick(['J', 'C', 'G', 'P'])}</FLTY>`;
    case 'FLIN': return `<FLIN>${pick(['D', 'I', 'M', 'R'])}</FLIN>`;
    case 'ESTT': return `<ESTT>${t(jitter())}</ESTT>`;
    case 'ACTT': return `<ACTT>${t(jitter())}</ACTT>`;
    case 'PADT': return `<PADT>${t(-150 + jitter())}</PADT>`;
    case 'BOTM': return `<BOTM>${t(-40)}</BOTM>`;
    case 'LACL': return `<LACL>${t(-20)}</LACL>`;
    case 'FINT': return `<FINT>${t(-10)}</FINT>`;
    case 'CNCL': return r() < 0.5 ? `<CNCL>${t(-60)}</CNCL>` : '<CNCL/>';
    case 'FTSS': return `<FTSS>${pick(['SCH', 'BOR', 'DEP', 'ARR', 'DLY', 'TBR'])}</FTSS>`;
    case 'EXSS': return `<EXSC>${pick(['DEL', 'ONT', 'BRD'])}</EXSC><EXSR>延误 remark ${Math.floor(r() * 100)}</EXSR>`;
    case 'FDIV': return r() < 0.7 ? `<FDIV DDES="${pick(AIRPORTS)}" DDIR="TO"/>` : '<FDIV/>';
    case 'FRET': return r() < 0.7 ? `<FRET REID="${pick(['G', 'A'])}"/>` : '<FRET/>';
    case 'STND': return `<STND>${pick(STANDS)}</STND>`;
    case 'PSDT': return `<PSDT PSNO="1"><PSST>${pick(STANDS)}</PSST><STST>${t(-10)}</STST><STET>${t(80)}</STET></PSDT>`;
    case 'GTDT': return `<GTDT GTNO="1"><GATE>${pick(GATES)}</GATE><PGOT>${t(-40)}</PGOT><PGCT>${t(-15)}</PGCT><GOTM>${t(-38)}</GOTM><GTYP>D</GTYP></GTDT>`;
    case 'CKDT': return `<CKDT CKNO="1"><CHKC>A${10 + Math.floor(r() * 80)}</CHKC><CCLS>Y</CCLS><PCOT>${t(-120)}</PCOT><PCCT>${t(-40)}</PCCT><CTYP>D</CTYP></CKDT>`;
    case 'CLDT': return `<CLDT CLNO="1"><BELT>B${10 + Math.floor(r() * 20)}</BELT><BCLS>X</BCLS><PCOT>${t(10)}</PCOT><PCCT>${t(40)}</PCCT><FBAG>${t(15)}</FBAG><BTYP>D</BTYP></CLDT>`;
    case 'CHDT': return `<CHDT CHNO="1"><CHUT>M${10 + Math.floor(r() * 30)}</CHUT><CCLS>X</CCLS><PCBT>${t(-120)}</PCBT><PCET>${t(-30)}</PCET><CTYP>D</CTYP></CHDT>`;
    case 'ABTM': return `<ABTM ASNO="1"><ABDG>${pick(STANDS)}A</ABDG><ABOP>A</ABOP><AOTM>${t(2)}</AOTM></ABTM>`;
    case 'CHOT': return `<CHOT CSNO="1"><CHTM>${t(1)}</CHTM><CHID>${pick(STANDS)}</CHID><CHST>ON</CHST></CHOT>`;
    case 'DELY': return `<DELY CODE="${pick(['93', '81', '11', '41'])}" STRT="${t(0)}" DURA="00${10 + Math.floor(r() * 49)}"/>`;
    case 'SRVT': return `<SRVT><SRTC>${pick(['CAT', 'CLN', 'FUE'])}</SRTC><SRQT>1</SRQT><SRST>${t(-50)}</SRST><SRET>${t(-20)}</SRET><SRPR>PROV</SRPR></SRVT>`;
    case 'ERUT': return `<ERUT RTNO="1"><APCD>${pick(AIRPORTS)}</APCD><SCDT>${t(-150)}</SCDT></ERUT><ERUT RTNO="2"><APCD>TAO</APCD><SCAT>${t(0)}</SCAT></ERUT>`;
    case 'FDEL': return '<FDEL/>';
    case 'EOBT': return `<EOBT>${t(jitter())}</EOBT>`;
    case 'TOBT': return r() < 0.9 ? `<TOBT>${t(jitter())}</TOBT>` : '';
    case 'COBT': return `<COBT>${t(jitter())}</COBT>`;
    case 'CTOT': return `<CTOT>${t(10 + jitter())}</CTOT>`;
    case 'IEST': return `<IEST>${t(jitter())}</IEST>`;
    case 'APPT': return `<APPT>${t(-10 + jitter())}</APPT>`;
    case 'EGSR': return `<EGSR>${t(-3)}</EGSR>`;
    case 'EGST': return `<EGST>${t(-1)}</EGST>`;
    case 'PEDT': return `<PEDT>${t(-150 + jitter())}</PEDT>`;
    case 'NEAT': return `<NEAT>${t(140 + jitter())}</NEAT>`;
    case 'NAAT': return `<NAAT>${t(145 + jitter())}</NAAT>`;
    case 'FLAB': return r() < 0.7 ? `<FLAB ARES="${pick(['WEATHER', 'TECH', 'ATC'])}">remark ${Math.floor(r() * 100)}</FLAB>` : '<FLAB/>';
    case 'HNAG': return `<PHAG>${100000 + Math.floor(r() * 9)}</PHAG><FHAG>${100010 + Math.floor(r() * 9)}</FHAG><MHAG>${100020 + Math.floor(r() * 9)}</MHAG>`;
    case 'MAXP': return `<MAXP>${120 + Math.floor(r() * 200)}</MAXP>`;
    case 'REMC': return `<REMC>remark ${Math.floor(r() * 100)} &amp; more</REMC>`;
    case 'RUNW': return `<RUNW>${pick(['02L', '20R', '01', '19'])}</RUNW>`;
    case 'VIPP': return `<VIPP>${Math.floor(r() * 4)}</VIPP><VIPR>${Math.floor(r() * 2)}</VIPR>`;
    case 'VIPF': return `<VIPF><VPCD>VC${1000 + Math.floor(r() * 9000)}</VPCD><VFES>${Math.floor(r() * 4)}</VFES></VIPF>`;
    case 'PORT': return `<PORT><POTM>${t(jitter())}</POTM><POID>${pick(['O', 'I'])}</POID></PORT>`;
    case 'PSHT': return `<PSHT PSHN="1"><PSTM>${t(1)}</PSTM><PSID>OUT</PSID><PUST>${pick(STANDS)}</PUST></PSHT>`;
    case 'TIPT': return `<TIPT><TRTM>${t(30)}</TRTM><TRST>${pick(STANDS)}</TRST></TIPT><TIPT><TRTM>${t(50)}</TRTM><TRST>${pick(STANDS)}</TRST></TIPT>`;
  }
}
