import { describe, expect, it } from 'vitest';
import { decode } from '../../../src/domain/codec/decode.ts';
import { parseAodbDateTime } from '../../../src/domain/time.ts';
import { formatAodbTime, formatCompactTime } from '../../../src/write/requests/aodbTime.ts';
import { rqfdXml } from '../../../src/write/requests/rqfdXml.ts';
import { dailyRunToday, nextDayWindow, parseWindowTime } from '../../../src/write/requests/requestWindow.ts';

const TZ = 'Asia/Shanghai';

describe('RQFD plan request message', () => {
  it('is the SIS envelope with local airport times: DTTM yyyyMMddHHmmss, STDB/STDE ddMMMyyHHmm', () => {
    const xml = rqfdXml(
      {
        seqn: '17',
        mgid: 'MSGX-RQ17-ABC123',
        sentAt: new Date('2025-03-14T01:02:03Z'),
        from: new Date('2025-03-14T16:00:00Z'),
        to: new Date('2025-03-15T15:59:00Z'),
      },
      TZ,
    );
    expect(xml).toBe(
      '<MSG><META><SNDR>MSGX</SNDR><SEQN>17</SEQN><DTTM>20250314090203</DTTM><TYPE>RQFD</TYPE><STYP>NONE</STYP>' +
        '<MGID>MSGX-RQ17-ABC123</MGID></META><RQFD><STDB>15MAR250000</STDB><STDE>15MAR252359</STDE></RQFD></MSG>',
    );
    // our own codec reads the META back (an unsupported TYPE, but a valid envelope)
    const back = decode(xml, { tz: TZ });
    expect(back).toMatchObject({ ok: false, errorClass: 'UNSUPPORTED', meta: { sndr: 'MSGX', seqn: '17', mgid: 'MSGX-RQ17-ABC123', type: 'RQFD', styp: 'NONE' } });
  });

  it('formats times in the zone (round trip through the domain parser), across a year boundary', () => {
    const at = new Date('2025-12-31T16:30:00Z'); // 2026-01-01 00:30 in Shanghai
    expect(formatAodbTime(at, TZ)).toBe('01JAN260030');
    expect(formatCompactTime(at, TZ)).toBe('20260101003000');
    expect(parseAodbDateTime(formatAodbTime(at, TZ))).toMatchObject({ year: 2026, month: 1, day: 1, hour: 0, minute: 30 });
    expect(formatAodbTime(new Date('2025-07-01T12:00:00Z'), 'Europe/Berlin')).toBe('01JUL251400');
  });
});

describe('request windows', () => {
  it('reads --from/--to: a zone means that instant, no zone means airport local time', () => {
    expect(parseWindowTime('2025-03-15T00:00:00+08:00', TZ)?.toISOString()).toBe('2025-03-14T16:00:00.000Z');
    expect(parseWindowTime('2025-03-15T00:00Z', TZ)?.toISOString()).toBe('2025-03-15T00:00:00.000Z');
    expect(parseWindowTime('2025-03-15T06:30', TZ)?.toISOString()).toBe('2025-03-14T22:30:00.000Z');
    expect(parseWindowTime('2025-03-15 06:30:15', TZ)?.toISOString()).toBe('2025-03-14T22:30:15.000Z');
    expect(parseWindowTime('2025-03-15', TZ)?.toISOString()).toBe('2025-03-14T16:00:00.000Z');
    expect(parseWindowTime('2025-02-30T00:00', TZ)).toBeNull();
    expect(parseWindowTime('tomorrow', TZ)).toBeNull();
  });

  it('the daily request asks for the whole next local day, due at HH:MM local time', () => {
    const now = new Date('2025-03-14T17:00:00Z'); // 2025-03-15 01:00 local
    expect(nextDayWindow(now, TZ)).toEqual({
      day: '2025-03-16',
      from: new Date('2025-03-15T16:00:00Z'),
      to: new Date('2025-03-16T15:59:00Z'),
    });
    expect(dailyRunToday(now, '06:00', TZ).toISOString()).toBe('2025-03-14T22:00:00.000Z');
  });
});
