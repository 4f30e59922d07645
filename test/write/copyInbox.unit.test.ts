/**
 * src/write/ingest/copyInbox.ts `copyValues`: the XML travels as one JSON array (docs/projections.md
 * "Big decisions"). PostgreSQL refuses a JSON escape of a lone surrogate, so one becomes U+FFFD
 * before it is sent, as the UTF-8 encoding of a text parameter made it before; U+0000 too, flagged.
 */
import { expect, it } from 'vitest';
import { copyValues } from '../../src/write/ingest/copyInbox.ts';

it('sends the XML as a JSON array of well-formed strings: lone surrogates and U+0000 as U+FFFD', () => {
  const rows = [
    { id: '1', xml: '<a>"x" \\ \n 北京 😀</a>', receivedAt: null },
    { id: '2', xml: '<a>\uD800 and \uDC00</a>', receivedAt: null },
    { id: '3', xml: '<a>\u0000</a>', receivedAt: null },
  ];
  const values = copyValues('CMINMSGS', rows, new Date('2025-03-14T00:00:00Z'));
  expect(JSON.parse(values[4] as string)).toEqual(['<a>"x" \\ \n 北京 😀</a>', '<a>\uFFFD and \uFFFD</a>', '<a>\uFFFD</a>']);
  expect(values[5]).toEqual([false, false, true]);
});
