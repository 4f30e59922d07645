/**
 * The audit trail of one CMINMSGS id: raw XML, META, processing state, every decision recorded for
 * it (with its changes) and the deliveries those decisions caused.
 */
import { toChangeView } from '../../domain/changeView.ts';
import type { Change } from '../../domain/changes.ts';
import { changesOf } from '../../domain/decisionPayload.ts';
import { metaFromPrefix } from '../../domain/codec/metaPrefix.ts';
import { identityKey } from '../../domain/identity.ts';
import type { ReadContext } from './context.ts';
import { messageMeta, type MessageMeta } from './messageMeta.ts';
import { archivedError, requireInt64 } from './errors.ts';
import { archivedMonthOfMessage } from '../../log/archivedHistory.ts';
import type { DecisionRecord } from '../../log/readForMessages.ts';
import { selectDeliveriesByPositions, type DeliveryRecord } from '../sql/selectDeliveries.ts';
import type { MessageRecord } from '../sql/selectMessages.ts';
import { isPersonalType, REFERENCE_KINDS } from '../../domain/reference/kinds.ts';
import { publicFields } from '../../domain/reference/record.ts';
import { isReferenceChange } from '../../domain/reference/changes.ts';

/**
 * A change as the API shows it: instants in the airport zone with the offset, as on Kafka `msg`
 * (toChangeView); VIPL records without their personal fields unless exposed.
 */
function shownChange(c: Change, ctx: ReadContext): Change {
  if (!isReferenceChange(c)) return toChangeView(c, ctx.deps.tz);
  if (ctx.deps.exposePersonalData === true || c.type !== 'ReferenceUpserted' || !isPersonalType(c.kind)) return c;
  return { ...c, fields: publicFields(c.fields, REFERENCE_KINDS[c.kind]!) };
}

/** A decision as a GraphQL parent; `onlyFlid` narrows its changes (flightHistory). */
export type DecisionParent = DecisionRecord & { readonly onlyFlid?: string };

const metaField = (name: Exclude<keyof MessageMeta, 'meta'>) => (m: MessageRecord, _a: unknown, ctx: ReadContext) =>
  messageMeta(m, ctx.deps.tz)[name];

/** The decision's changes, narrowed to `onlyFlid` (flight-less summaries kept, their flid lists narrowed). */
function ownChanges(d: DecisionParent): readonly Change[] {
  const changes = changesOf(d);
  const only = d.onlyFlid;
  if (only === undefined) return changes;
  return changes
    .filter((c) => !('flid' in c) || c.flid === only)
    .map((c) => (c.type === 'FlightsArchived' ? { ...c, flids: c.flids.filter((f) => f === only) } : c));
}

/**
 * The payload as the API shows it: its changes shown (shownChange) and, with `onlyFlid`, only that
 * flight's part — its changes, and any list of flight ids narrowed to it.
 */
function shownPayload(d: DecisionParent, ctx: ReadContext): Record<string, unknown> {
  const part: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(d.payload)) {
    if (key === 'changes') part[key] = ownChanges(d).map((c) => shownChange(c, ctx));
    else if (d.onlyFlid !== undefined && Array.isArray(value) && /flids$/i.test(key)) part[key] = value.filter((f) => f === d.onlyFlid);
    else part[key] = value;
  }
  return part;
}

export const messageResolvers = {
  Query: {
    async message(_: unknown, args: { id: string }, ctx: ReadContext): Promise<MessageRecord | null> {
      const id = requireInt64(args.id, 'id');
      const found = await ctx.loaders.message.load(id);
      if (found !== null) return found;
      // Not here: an archived month's message is answered with its file (docs/operations.md "Archive a month").
      const archived = await archivedMonthOfMessage(ctx.deps.db, id);
      if (archived) throw archivedError(`message ${id} is in the archived month ${archived.month}: msgx restore ${archived.restoreFile}`, archived.restoreFile);
      return null;
    },
  },
  InboxMessage: {
    sender: metaField('sender'),
    type: metaField('type'),
    subtype: metaField('subtype'),
    seqn: metaField('seqn'),
    dttm: metaField('dttm'),
    receiver: metaField('receiver'),
    mgid: metaField('mgid'),
    rmid: metaField('rmid'),
    identityKey(m: MessageRecord, _a: unknown, ctx: ReadContext): string | null {
      if (m.identityKey !== null) return m.identityKey;
      // Not bound (a duplicate, or not decided yet): the key it would bind, when META can be read.
      const meta = messageMeta(m, ctx.deps.tz).meta;
      return meta ? identityKey(meta, { includeDay: ctx.deps.identityIncludeDay }) : null;
    },
    // Loaded only when asked for (up to 16 MiB, weighted in costLimit.ts). VIPL messages carry
    // personal data: no raw text unless MSGX_EXPOSE_PERSONAL_DATA=true.
    async rawXml(m: MessageRecord, _a: unknown, ctx: ReadContext): Promise<string | null> {
      const raw = await ctx.loaders.rawXml.load(m.id);
      if (raw === null || ctx.deps.exposePersonalData === true) return raw;
      const type = messageMeta(m, ctx.deps.tz).type ?? metaFromPrefix(raw, ctx.deps.tz)?.type;
      return isPersonalType(type) ? null : raw;
    },
    state: (m: MessageRecord) => m.state ?? 'PENDING',
    attempts: (m: MessageRecord) => m.attempts ?? 0,
    decisions: (m: MessageRecord, _a: unknown, ctx: ReadContext): Promise<DecisionParent[]> => ctx.loaders.decisionsByMsg.load(m.id),
    async deliveries(m: MessageRecord, _a: unknown, ctx: ReadContext): Promise<DeliveryRecord[]> {
      const decisions = await ctx.loaders.decisionsByMsg.load(m.id);
      return selectDeliveriesByPositions(ctx.deps.db, decisions.map((d) => d.position));
    },
  },
  Decision: {
    changes(d: DecisionParent, _a: unknown, ctx: ReadContext) {
      return ownChanges(d).map((c) => ({ type: c.type, flid: 'flid' in c ? c.flid : null, data: JSON.stringify(shownChange(c, ctx)) }));
    },
    // In flightHistory a decision shows only that flight's part (docs/security.md): a plan snapshot's
    // payload names thousands of flights, and a page of 500 of them must not carry all of them.
    payload(d: DecisionParent, _a: unknown, ctx: ReadContext) {
      return JSON.stringify(shownPayload(d, ctx));
    },
  },
  Delivery: {
    ref: (r: DeliveryRecord) => (r.ref === null || r.ref === undefined ? null : JSON.stringify(r.ref)),
  },
};
