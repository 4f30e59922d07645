/** `msgx status`: its times carry the airport offset (interface.md: every outward time), text and --json. */
import { expect, it } from 'vitest';
import { formatMode, formatStatus, withOffsets } from '../../src/cli/statusCommand.ts';
import type { StatusView as PipelineStatus } from '../../src/cli/statusCommand.ts';

const TZ = 'Asia/Shanghai';
const status: PipelineStatus = {
  backlog: 1,
  head: {
    msgId: '7', state: 'FAILED', attempts: 2, ingestedAt: new Date('2025-03-14T00:00:00Z'), nextAttemptAt: new Date('2025-03-14T01:30:05.250Z'),
    errorClass: 'INFRA', lastError: 'connection refused', blockedByGap: false,
  },
  counts: [{ state: 'FAILED', errorClass: 'INFRA', n: 1 }],
  gaps: { open: 0, lowest: null, oldestOpenedAt: null, expired: 0 },
  watermark: '7', lastPosition: '3', projections: [], backfillPending: 0,
  skippedToday: 4,
  writer: { lockHeld: true, holder: 'host-a pid 12', since: new Date('2025-03-14T00:00:00Z'), epoch: '3', standbys: 1 },
};

it('shows the head\'s next try and the mode change in the airport zone with the offset', () => {
  expect(formatStatus(status, new Date('2025-03-14T00:00:10Z'), TZ)).toContain('next try 2025-03-14T09:30:05.250+08:00');
  const mode = { shadow: false, shadowSince: null, cutoverAt: new Date('2025-03-14T02:00:00Z'), cutoverPosition: '40', topicPrefix: 'shadow.' };
  expect(formatMode(mode as unknown as Parameters<typeof formatMode>[0], TZ)).toContain('cut over from shadow at 2025-03-14T10:00:00+08:00');
});

it('--json: every Date with the offset, the rest as it is', () => {
  const json = JSON.parse(JSON.stringify(withOffsets(status, TZ)));
  expect(json.head).toMatchObject({ ingestedAt: '2025-03-14T08:00:00+08:00', nextAttemptAt: '2025-03-14T09:30:05.250+08:00', attempts: 2 });
  expect(json.gaps).toEqual(status.gaps);
});

it('shows a projector that passed the log head read just before it with lag 0, never a negative lag', () => {
  const text = formatStatus({ ...status, lastPosition: '3', projections: [{ name: 'flights', position: '5' }, { name: 'outbox', position: '1' }] }, new Date('2025-03-14T00:00:10Z'), TZ);
  expect(text).toContain('projection     flights at 5 (lag 0)');
  expect(text).toContain('projection     outbox at 1 (lag 2)');
});

it('shows the messages skipped today and the writer lock (the console\'s tiles read the same status)', () => {
  const text = formatStatus(status, new Date('2025-03-14T00:00:10Z'), TZ);
  expect(text).toContain('skipped today  4 (since midnight, airport time)');
  expect(text).toContain('writer         host-a pid 12 since 2025-03-14T08:00:00+08:00, epoch 3, 1 standby waiting');
  const idle = formatStatus({ ...status, writer: { lockHeld: false, holder: null, since: null, epoch: '0', standbys: 0 } }, new Date('2025-03-14T00:00:10Z'), TZ);
  expect(idle).toContain('writer         no writer holds the lock, epoch 0, 0 standby waiting');
});
