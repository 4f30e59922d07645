/**
 * What `decision_event.payload` holds, per `kind`: one interface per decision kind, the exact
 * fields its writer writes (the JSON on disk is unchanged, so older logs read as before), and
 * `DecisionBody`, the discriminated union `{ kind, payload }` that writers append
 * (src/log/appendDecisions.ts) and readers narrow on `kind`. `DecisionKind` is derived from it.
 *
 * `decisionBody` is the one boundary between a decision_event row (kind text + jsonb) and the
 * union. It checks cheaply: the kind is known, the payload is a JSON object, and each top-level
 * field the interface names is there (unless optional) with the right JSON type. It does not
 * re-validate the elements of arrays (a `Change` is the domain's own and was written by it). A row
 * that fails is a `DecisionLogError` naming its position — never a silent cast. Pure.
 */
import type { Change, FlightsArchived, PlanRequested } from './changes.ts';
import type { BlockOutcome } from './handlers/flop.ts';

/** What a reference decision lists besides its changes (also on Skipped reference decisions). */
export interface ReferenceNotes {
  readonly skippedRecords?: readonly { readonly index: number; readonly reason: string; readonly detail?: string }[];
  readonly unknownRecords?: readonly string[];
  readonly notes?: readonly string[];
  readonly warnings?: readonly string[];
}

/** A message decided into changes (the pump). */
export interface AppliedPayload extends ReferenceNotes {
  readonly changes: readonly Change[];
  readonly unknownFlids?: readonly string[];
  readonly deletedFlids?: readonly string[];
  readonly staleFlids?: readonly string[];
  /** FLOP: every block's outcome. */
  readonly blocks?: readonly BlockOutcome[];
}

/** A message decided into no changes; `reason` e.g. `duplicate-of:<id>`, `unknown-flight`. */
export interface SkippedPayload extends ReferenceNotes {
  readonly reason: string;
  readonly blocks?: readonly BlockOutcome[];
}

interface FailurePayload {
  /** docs/contract/design.md §6: MALFORMED, CODEC_ERROR, UNSUPPORTED, INFRA, EXHAUSTED. */
  readonly errorClass: string;
  readonly error: string;
  readonly attempt: number;
}

/** INFRA, to be retried at `nextAttemptAt` (UTC ISO). */
export interface FailedPayload extends FailurePayload {
  readonly nextAttemptAt: string;
}

/** CODEC_ERROR / UNSUPPORTED: terminal for the FIFO until `msgx replay --class`. */
export type ParkedPayload = FailurePayload;

/** MALFORMED, or EXHAUSTED with the class it was retried for as `causeClass`. */
export interface DeadPayload extends FailurePayload {
  readonly causeClass?: string;
}

/** `msgx replay`: the message's state before it went back to PENDING, and the operator's filter. */
export interface ReplayRequestedPayload {
  readonly fromState: 'FAILED' | 'DEAD' | 'PARKED';
  readonly errorClass: string;
  readonly causeClass?: string;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly filter: { readonly class: string; readonly ids?: readonly string[]; readonly since?: string };
  readonly requestedBy?: string;
}

/** The history sweep (src/domain/archive.ts): no message, the archived flids in `changes`. */
export interface FlightsArchivedPayload {
  readonly changes: readonly FlightsArchived[];
  readonly keepDays: number;
  /** The latest operation day that made the sweep due (absent in sweeps of older logs). */
  readonly latestDay?: string;
}

/** An ingest gap that stayed open past MSGX_GAP_TIMEOUT_MS; `msg_id` is the missing id. */
export interface GapExpiredPayload {
  readonly source: string;
  readonly gapId: string;
  readonly openedAt: string;
  readonly timeoutMs: number;
}

/** `msgx replay-deliveries`: DEAD deliveries of a target back to PENDING. */
export interface DeliveryReplayRequestedPayload {
  readonly target: string;
  readonly eventIds: readonly string[];
  readonly requestedBy?: string;
}

/** A message outcome a Correction supersedes, with the digest of its re-decided outcome. */
export interface Superseded {
  readonly msgId: string;
  readonly digest: string;
}

/** `msgx redecide --apply`: one flight brought to its re-decided state. */
export interface CorrectionPayload {
  readonly changes: readonly Change[];
  readonly reportId: string;
  readonly from: string;
  readonly to: string;
  readonly handlerVersions: Readonly<Record<string, number>>;
  readonly supersedes: readonly Superseded[];
  /** The configuration the re-decision ran with. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly requestedBy: string;
}

/** A shadow run started (src/write/shadow). */
export interface ShadowStartedPayload {
  readonly topicPrefix: string;
  readonly requestedBy: string;
}

/** The shadow run's cut-over to production. */
export interface CutOverPayload {
  readonly cutoverPosition: string;
  readonly watermark: string;
  readonly undecided: number;
  readonly shadowSince: string | null;
  readonly topicPrefix: string | null;
  readonly requestedBy: string;
}

/** A plan request recorded in shadow mode instead of being sent. */
export interface PlanRequestRecordedPayload {
  readonly request: 'RQFD';
  readonly from: string;
  readonly to: string;
  readonly dailyFor?: string;
  readonly sent: boolean;
  readonly reason: string;
  readonly requestedBy: string;
}

/** A plan request registered to be sent; its PlanRequested change decides the RESP answering it. */
export interface PlanRequestedPayload {
  readonly request: 'RQFD';
  readonly reqId: string;
  readonly dailyFor?: string;
  readonly requestedBy?: string;
  readonly changes: readonly PlanRequested[];
}

/** `msgx rebuild` on record (src/log/operatorAction.ts). */
export interface RebuildRequestedPayload {
  readonly projection: 'flights' | 'reference';
  readonly detail?: string;
  readonly requestedBy: string;
}

/** `msgx request-reference` on record: sent (`requests`), or only recorded in shadow (`sent: false`, `reason`). */
export interface ReferenceRequestedPayload {
  readonly request: 'RQRD';
  readonly kinds: readonly string[];
  readonly requests?: readonly { readonly kind: string; readonly reqId: string; readonly mgid: string; readonly sent: boolean }[];
  readonly sent?: boolean;
  readonly reason?: string;
  readonly requestedBy: string;
}

/** One table's file of an archived month (src/operations/archive/). */
export interface ArchivedFile {
  readonly table: string;
  readonly file: string;
  readonly sha256: string;
  readonly rows: number;
}

/** `msgx archive` on record: the month's files, verified, before its partitions are dropped. */
export interface HistoryArchivedPayload {
  readonly month: string;
  readonly files: readonly ArchivedFile[];
  readonly requestedBy: string;
}

/** `msgx restore` on record: the month's partitions attached again from its verified files. */
export interface HistoryRestoredPayload {
  readonly month: string;
  readonly files: readonly ArchivedFile[];
  readonly requestedBy: string;
}

/** Each decision kind's payload. Adding a kind here (and its spec below) is all it takes. */
export interface DecisionPayloads {
  readonly Applied: AppliedPayload;
  readonly Skipped: SkippedPayload;
  readonly Failed: FailedPayload;
  readonly Dead: DeadPayload;
  readonly Parked: ParkedPayload;
  readonly ReplayRequested: ReplayRequestedPayload;
  readonly FlightsArchived: FlightsArchivedPayload;
  readonly GapExpired: GapExpiredPayload;
  readonly DeliveryReplayRequested: DeliveryReplayRequestedPayload;
  readonly Correction: CorrectionPayload;
  readonly ShadowStarted: ShadowStartedPayload;
  readonly CutOver: CutOverPayload;
  readonly PlanRequestRecorded: PlanRequestRecordedPayload;
  readonly PlanRequested: PlanRequestedPayload;
  readonly RebuildRequested: RebuildRequestedPayload;
  readonly ReferenceRequested: ReferenceRequestedPayload;
  readonly HistoryArchived: HistoryArchivedPayload;
  readonly HistoryRestored: HistoryRestoredPayload;
}

export type DecisionKind = keyof DecisionPayloads;
export type DecisionPayload<K extends DecisionKind = DecisionKind> = DecisionPayloads[K];

/** A decision of kind K: its kind and payload. */
export interface DecisionOf<K extends DecisionKind> {
  readonly kind: K;
  readonly payload: DecisionPayloads[K];
}

/** The union of every kind's `{ kind, payload }`: narrow on `kind`. */
export type DecisionBody = { readonly [K in DecisionKind]: DecisionOf<K> }[DecisionKind];

/** A decision_event row that does not read as a DecisionBody (unknown kind, malformed payload). */
export class DecisionLogError extends Error {
  constructor(readonly position: string, problem: string) {
    super(`decision_event position ${position}: ${problem}`);
    this.name = 'DecisionLogError';
  }
}

// The check of one payload field, as a tag derived from the interface's field type, so a spec
// that does not match its interface does not compile: 'string', 'number', 'boolean', 'array',
// 'object'; '…?' optional; '…|null' nullable; a required string-literal union as its set of values.
type JsonType<V> =
  [V] extends [string] ? 'string'
  : [V] extends [number] ? 'number'
  : [V] extends [boolean] ? 'boolean'
  : [V] extends [readonly unknown[]] ? 'array'
  : [V] extends [object] ? 'object'
  : never;
type ValueSet<V extends string> = { readonly [L in V]: true };
type FieldCheck<V> =
  undefined extends V ? `${JsonType<Exclude<V, undefined>>}?`
  : null extends V ? `${JsonType<Exclude<V, null>>}|null`
  : [V] extends [string] ? (string extends V ? 'string' : ValueSet<V>)
  : JsonType<V>;
type PayloadSpec<T> = { readonly [F in keyof T]-?: FieldCheck<T[F]> };
type AnyCheck = string | { readonly [value: string]: true };

const jsonTypeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** A field check compiled once from its tag: the JSON type wanted, whether absent/null pass, the allowed values. */
interface FieldRule {
  readonly name: string;
  readonly want: string;
  readonly optional: boolean;
  readonly nullable: boolean;
  readonly values: ReadonlySet<string> | null;
}

function ruleOf(name: string, check: AnyCheck): FieldRule {
  if (typeof check !== 'string') return { name, want: 'string', optional: false, nullable: false, values: new Set(Object.keys(check)) };
  const optional = check.endsWith('?');
  const nullable = check.endsWith('|null');
  return { name, want: optional ? check.slice(0, -1) : nullable ? check.slice(0, -5) : check, optional, nullable, values: null };
}

/** The problem with value `v` under `rule`, or null. */
function fieldProblem(rule: FieldRule, v: unknown): string | null {
  if (v === undefined) return rule.optional ? null : `${rule.name} is missing`;
  if (v === null) return rule.nullable ? null : `${rule.name} is null, not ${rule.want}`;
  if (rule.values !== null) {
    return typeof v === 'string' && rule.values.has(v) ? null : `${rule.name} is ${JSON.stringify(v)}, not one of ${[...rule.values].join(', ')}`;
  }
  // typeof first: no Array.isArray for the common string/number fields.
  const t = typeof v;
  const got = t === 'object' && Array.isArray(v) ? 'array' : t;
  return got === rule.want ? null : `${rule.name} is ${got}, not ${rule.want}`;
}

type Reader<K extends DecisionKind> = (position: string, payload: unknown) => DecisionOf<K>;

/** Throws unless `payload` is an object whose fields pass `rules` (fields not named are left alone). */
function assertPayload<T>(position: string, kind: string, payload: unknown, rules: readonly FieldRule[]): asserts payload is T {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new DecisionLogError(position, `${kind} payload is ${jsonTypeOf(payload)}, not an object`);
  }
  for (const rule of rules) {
    const problem = fieldProblem(rule, Reflect.get(payload, rule.name));
    if (problem !== null) throw new DecisionLogError(position, `malformed ${kind} payload: ${problem}`);
  }
}

function reader<K extends DecisionKind>(kind: K, spec: PayloadSpec<DecisionPayloads[K]>): Reader<K> {
  const entries: [string, AnyCheck][] = Object.entries(spec);
  const rules = entries.map(([name, check]) => ruleOf(name, check));
  return (position, payload) => {
    assertPayload<DecisionPayloads[K]>(position, kind, payload, rules);
    return { kind, payload };
  };
}

const REFERENCE_NOTES = { skippedRecords: 'array?', unknownRecords: 'array?', notes: 'array?', warnings: 'array?' } as const;
const FAILURE = { errorClass: 'string', error: 'string', attempt: 'number' } as const;

const READERS: { readonly [K in DecisionKind]: Reader<K> } = {
  Applied: reader('Applied', {
    changes: 'array', unknownFlids: 'array?', deletedFlids: 'array?', staleFlids: 'array?', blocks: 'array?', ...REFERENCE_NOTES,
  }),
  Skipped: reader('Skipped', { reason: 'string', blocks: 'array?', ...REFERENCE_NOTES }),
  Failed: reader('Failed', { ...FAILURE, nextAttemptAt: 'string' }),
  Dead: reader('Dead', { ...FAILURE, causeClass: 'string?' }),
  Parked: reader('Parked', FAILURE),
  ReplayRequested: reader('ReplayRequested', {
    fromState: { FAILED: true, DEAD: true, PARKED: true }, errorClass: 'string', causeClass: 'string?', attempts: 'number',
    lastError: 'string|null', filter: 'object', requestedBy: 'string?',
  }),
  FlightsArchived: reader('FlightsArchived', { changes: 'array', keepDays: 'number', latestDay: 'string?' }),
  GapExpired: reader('GapExpired', { source: 'string', gapId: 'string', openedAt: 'string', timeoutMs: 'number' }),
  DeliveryReplayRequested: reader('DeliveryReplayRequested', { target: 'string', eventIds: 'array', requestedBy: 'string?' }),
  Correction: reader('Correction', {
    changes: 'array', reportId: 'string', from: 'string', to: 'string', handlerVersions: 'object', supersedes: 'array',
    config: 'object', requestedBy: 'string',
  }),
  ShadowStarted: reader('ShadowStarted', { topicPrefix: 'string', requestedBy: 'string' }),
  CutOver: reader('CutOver', {
    cutoverPosition: 'string', watermark: 'string', undecided: 'number', shadowSince: 'string|null', topicPrefix: 'string|null',
    requestedBy: 'string',
  }),
  PlanRequestRecorded: reader('PlanRequestRecorded', {
    request: { RQFD: true }, from: 'string', to: 'string', dailyFor: 'string?', sent: 'boolean', reason: 'string', requestedBy: 'string',
  }),
  PlanRequested: reader('PlanRequested', { request: { RQFD: true }, reqId: 'string', dailyFor: 'string?', requestedBy: 'string?', changes: 'array' }),
  RebuildRequested: reader('RebuildRequested', { projection: { flights: true, reference: true }, detail: 'string?', requestedBy: 'string' }),
  ReferenceRequested: reader('ReferenceRequested', {
    request: { RQRD: true }, kinds: 'array', requests: 'array?', sent: 'boolean?', reason: 'string?', requestedBy: 'string',
  }),
  HistoryArchived: reader('HistoryArchived', { month: 'string', files: 'array', requestedBy: 'string' }),
  HistoryRestored: reader('HistoryRestored', { month: 'string', files: 'array', requestedBy: 'string' }),
};

/** Every decision kind, in the order of DecisionPayloads. */
export const DECISION_KINDS: readonly DecisionKind[] = Object.keys(READERS).filter(isDecisionKind);

export function isDecisionKind(kind: string): kind is DecisionKind {
  return Object.hasOwn(READERS, kind);
}

/** `kind` as a DecisionKind, or DecisionLogError naming `position` (for readers that take only part of the payload). */
export function decisionKindAt(position: string, kind: string): DecisionKind {
  if (!isDecisionKind(kind)) throw new DecisionLogError(position, `unknown decision kind ${JSON.stringify(kind)}`);
  return kind;
}

/**
 * The boundary: a decision_event row's `kind` and parsed `payload` as the union, or
 * DecisionLogError naming `position` (unknown kind, payload not an object, a field missing or of
 * the wrong JSON type). The payload object is returned as it is, not copied.
 */
export function decisionBody(position: string, kind: string, payload: unknown): DecisionBody {
  return READERS[decisionKindAt(position, kind)](position, payload);
}

/** The changes a decision carries (those of Applied, Correction, FlightsArchived and PlanRequested; none for the others). */
export function changesOf(d: DecisionBody): readonly Change[] {
  switch (d.kind) {
    case 'Applied':
    case 'Correction':
    case 'FlightsArchived':
    case 'PlanRequested':
      return d.payload.changes;
    default:
      return [];
  }
}
