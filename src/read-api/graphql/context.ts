import type { Clock } from '../../platform/clock.ts';
import type { Queryable } from '../../platform/db.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Mailbox } from '../../platform/mailbox/port.ts';
import type { ModeProbe } from '../../platform/runMode.ts';
import type { FlightLists, FlightState } from '../../domain/flight.ts';
import { emptyLists } from '../../domain/lists.ts';
import { DETAIL_TABLES, type DetailTable } from '../../readModel/flightRows.ts';
import { createBatchLoader, type BatchLoader } from './batchLoader.ts';
import { selectFlightsByFlid } from '../sql/selectBoard.ts';
import { selectDetailLists } from '../sql/selectFlightLists.ts';
import { selectDecisionsByMsgIds, type DecisionRecord } from '../../log/readForMessages.ts';
import { selectMessages, type MessageRecord } from '../sql/selectMessages.ts';
import { selectRawXml } from '../sql/selectRawXml.ts';
import { META_PREFIX_CHARS } from '../../domain/codec/metaPrefix.ts';
import { selectReferenceByKeys, type ReferenceRow } from '../sql/selectReference.ts';

/** What the read API needs from the runtime: a read-only pool and a few settings. */
export interface ReadApiDeps {
  /** Only ever SELECTs (rt.readPool). */
  readonly db: Queryable;
  /** The primary (rt.pool) when `db` is a replica: pipeline.replica's lag is measured against its log head. */
  readonly primary?: Queryable;
  readonly clock: Clock;
  readonly log: Logger;
  /** The airport's IANA zone (DateTime output, codec). */
  readonly tz: string;
  readonly identityIncludeDay: boolean;
  /** For counting CMINMSGS rows not copied yet (pipeline.backlog); optional for unit tests. */
  readonly mailbox?: Pick<Mailbox, 'countAfter'>;
  /** MSGX_ALLOWED_ORIGINS: CORS is answered for these origins only; none (the default) → no CORS at all. */
  readonly allowedOrigins?: readonly string[];
  /** MSGX_EXPOSE_PERSONAL_DATA: serve VIPL records whole and VIPL raw XML (default false). */
  readonly exposePersonalData?: boolean;
  /** The run mode for pipeline.mode / pipeline.shadow (default: read from `db`). */
  readonly mode?: ModeProbe;
  /** MSGX_ADMIN_TOKEN is set: the /admin endpoints are on (Query.adminEnabled, for the console). */
  readonly adminEnabled?: boolean;
}

export interface Loaders {
  readonly flight: BatchLoader<string, FlightState | null>;
  /** Per detail table: the lists that table holds, per flid. */
  readonly details: Readonly<Record<DetailTable, BatchLoader<string, FlightLists>>>;
  /** The light row: no raw XML, only a META prefix when the columns are empty. */
  readonly message: BatchLoader<string, MessageRecord | null>;
  /** Raw XML by message id, for `rawXml` only. */
  readonly rawXml: BatchLoader<string, string | null>;
  readonly decisionsByMsg: BatchLoader<string, DecisionRecord[]>;
  /** Reference records by `kind \0 code` (every …Info field). */
  readonly reference: BatchLoader<string, ReferenceRow | null>;
}

export interface ReadContext {
  readonly deps: ReadApiDeps;
  readonly loaders: Loaders;
}

const NO_LISTS: FlightLists = Object.freeze(emptyLists()) as FlightLists;

/** Fresh loaders per request: batching and caching never outlive one operation. */
export function createLoaders(db: Queryable): Loaders {
  return {
    flight: createBatchLoader((flids) => selectFlightsByFlid(db, flids), null),
    details: Object.fromEntries(
      DETAIL_TABLES.map((t) => [t, createBatchLoader<string, FlightLists>((flids) => selectDetailLists(db, t, flids), NO_LISTS)]),
    ) as Record<DetailTable, BatchLoader<string, FlightLists>>,
    message: createBatchLoader((ids) => selectMessages(db, ids, META_PREFIX_CHARS), null),
    rawXml: createBatchLoader((ids) => selectRawXml(db, ids), null),
    decisionsByMsg: createBatchLoader((ids) => selectDecisionsByMsgIds(db, ids), []),
    reference: createBatchLoader((keys) => selectReferenceByKeys(db, keys), null),
  };
}
