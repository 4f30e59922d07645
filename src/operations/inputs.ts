/**
 * The inputs of the operator actions, checked once for both entry points: `msgx <action>` hands
 * its options, `POST /admin/<action>` its JSON body, each as the same named fields (a list may be a
 * JSON array or a comma string). A wrong field is a UsageError with one message, the same from
 * either entry point (docs/operations.md "Replay"; docs/architecture.md "src/operations"). Bounds: at most MAX_IDS ids of 1-19
 * digits (a PostgreSQL bigint) per request; every text shown back is cut to SHOWN characters.
 */
import { isReplayClass, isTarget, REPLAY_CLASSES, TARGETS, type ReplayClass, type Target } from '../domain/contract.ts';
import { REFERENCE_KIND_NAMES, referenceKindsOf } from '../domain/reference/kinds.ts';
import { UsageError } from '../platform/errors.ts';
import { parseWindowTime } from '../write/requests/requestWindow.ts';

/** Ids in one request, at most. */
export const MAX_IDS = 10_000;
const ID = /^\d{1,19}$/;
/** How much of a wrong value a message shows. */
const SHOWN = 60;

/** The fields as given: a CLI option's text, or a JSON body's value (absent: undefined or null). */
export type RawFields = Readonly<Record<string, unknown>>;

export interface ReplayInput {
  readonly errorClass: ReplayClass;
  readonly ids?: readonly string[];
  readonly since?: Date;
}

export interface ReplayDeliveriesInput {
  readonly target: Target;
  readonly eventIds?: readonly string[];
}

export interface RequestPlanInput {
  readonly from: Date;
  readonly to: Date;
}

export interface RequestReferenceInput {
  readonly kinds: readonly string[];
}

/** `replay`: `class` (required), `ids`, `since` (ISO-8601). */
export function replayInput(raw: RawFields): ReplayInput {
  const given = text(raw.class);
  if (given === undefined || !isReplayClass(given)) {
    const malformed = given === 'MALFORMED' ? ' (MALFORMED is never replayed)' : '';
    throw new UsageError(`class must be one of ${REPLAY_CLASSES.join(', ')}${malformed}${got(given)}`);
  }
  const ids = idList(raw.ids);
  const since = instant('since', raw.since);
  return { errorClass: given, ...(ids ? { ids } : {}), ...(since ? { since } : {}) };
}

/** `replay-deliveries`: `target` (required), `ids` (event ids). */
export function replayDeliveriesInput(raw: RawFields): ReplayDeliveriesInput {
  const given = text(raw.target);
  if (given === undefined || !isTarget(given)) throw new UsageError(`target must be one of ${TARGETS.join(', ')}${got(given)}`);
  const eventIds = idList(raw.ids);
  return { target: given, ...(eventIds ? { eventIds } : {}) };
}

/** `request-plan`: `from` and `to` (ISO-8601; no zone = airport time `tz`), `to` after `from`. */
export function requestPlanInput(raw: RawFields, tz: string): RequestPlanInput {
  const bound = (name: 'from' | 'to'): Date => {
    const given = text(raw[name]);
    if (given === undefined) throw new UsageError(`${name} is required (ISO-8601, e.g. 2025-03-15T00:00; no zone = ${tz})`);
    const at = parseWindowTime(given, tz);
    if (!at) throw new UsageError(`${name} must be an ISO-8601 date-time${got(given)}`);
    return at;
  };
  const from = bound('from');
  const to = bound('to');
  if (to.getTime() <= from.getTime()) throw new UsageError('to must be after from');
  return { from, to };
}

/** `request-reference`: `kinds` (reference kinds; absent: all of them). */
export function requestReferenceInput(raw: RawFields): RequestReferenceInput {
  if (absent(raw.kinds)) return { kinds: [...REFERENCE_KIND_NAMES] };
  const given = listOf(raw.kinds);
  const kinds = referenceKindsOf(given);
  if (!kinds) throw new UsageError(`kinds must be reference kinds separated by commas (${REFERENCE_KIND_NAMES.join(',')})${got(given.join(','))}`);
  return { kinds };
}

const absent = (v: unknown): boolean => v === undefined || v === null;

/** A single text field (blank: absent); a list or an object is not one. */
function text(v: unknown): string | undefined {
  if (absent(v)) return undefined;
  const t = typeof v === 'string' || typeof v === 'number' ? String(v).trim() : `${typeof v}`;
  return t === '' ? undefined : t;
}

/** A JSON array or a comma string, trimmed, empty entries dropped. */
function listOf(v: unknown): string[] {
  const items = Array.isArray(v) ? v.map(String) : String(v).split(',');
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

/** `ids`: absent, or 1..MAX_IDS whole numbers of 1-19 digits, in their canonical form (no leading zeros). */
function idList(v: unknown): string[] | undefined {
  if (absent(v)) return undefined;
  if (Array.isArray(v) && v.length > MAX_IDS) throw tooManyIds(v.length);
  const ids = listOf(v);
  if (ids.length === 0) throw new UsageError('ids must name at least one id');
  if (ids.length > MAX_IDS) throw tooManyIds(ids.length);
  const bad = ids.find((s) => !ID.test(s));
  if (bad !== undefined) throw new UsageError(`ids must be whole numbers of 1 to 19 digits${got(bad)}`);
  return ids.map((s) => String(BigInt(s)));
}

const tooManyIds = (n: number): UsageError => new UsageError(`ids: at most ${MAX_IDS} in one request (got ${n})`);

function instant(name: string, v: unknown): Date | undefined {
  const given = text(v);
  if (given === undefined) return undefined;
  const at = new Date(given);
  if (Number.isNaN(at.getTime())) throw new UsageError(`${name} must be an ISO-8601 time${got(given)}`);
  return at;
}

function got(given: string | undefined): string {
  if (given === undefined || given === '') return '';
  return ` (got '${given.length > SHOWN ? `${given.slice(0, SHOWN)}…` : given}')`;
}
