import type { Config } from './config.ts';
import { SqlState, sqlState, type Queryable } from './db.ts';

/**
 * The run mode recorded in the own database (table `run_mode`, migration 110): shadow beside the
 * legacy system, or production — and, after a cut-over, which decisions were decided in shadow.
 * Every msgx process and CLI command reads it, so a database started in shadow stays shadow for
 * every command until a writer starts without --shadow (docs/contract/design.md §11). Written only by the
 * writer's start-up (src/write/shadow/runModeChange.ts).
 */
export interface RunMode {
  /** This database is in a shadow run now: no write-back, no COUTMSGS, prefixed topics. */
  readonly shadow: boolean;
  /** The topic prefix of the shadow run (null: this database never ran as shadow). */
  readonly topicPrefix: string | null;
  readonly shadowSince: Date | null;
  readonly cutoverAt: Date | null;
  /**
   * The last decision decided in shadow (null: none, or still shadow — then every decision is).
   * Decisions up to it are never written back, inserted into COUTMSGS or sent to production topics.
   */
  readonly cutoverPosition: string | null;
  readonly cutoverWatermark: string | null;
}

export const PRODUCTION_MODE: RunMode = Object.freeze({
  shadow: false,
  topicPrefix: null,
  shadowSince: null,
  cutoverAt: null,
  cutoverPosition: null,
  cutoverWatermark: null,
});

export type ModeName = 'shadow' | 'production';

export function modeName(mode: Pick<RunMode, 'shadow'>): ModeName {
  return mode.shadow ? 'shadow' : 'production';
}

export interface RunModeRow {
  shadow: boolean;
  topic_prefix: string | null;
  shadow_since: Date | null;
  cutover_at: Date | null;
  cutover_position: string | null;
  cutover_watermark: string | null;
}

export function runModeOf(r: RunModeRow | undefined): RunMode {
  if (!r) return PRODUCTION_MODE;
  return {
    shadow: r.shadow,
    topicPrefix: r.topic_prefix,
    shadowSince: r.shadow_since,
    cutoverAt: r.cutover_at,
    cutoverPosition: r.cutover_position,
    cutoverWatermark: r.cutover_watermark,
  };
}

/** The recorded mode (production when the row or the table is missing: a database before migration 110). */
export async function readRunMode(q: Queryable): Promise<RunMode> {
  try {
    const { rows } = await q.query<RunModeRow>(
      'SELECT shadow, topic_prefix, shadow_since, cutover_at, cutover_position::text, cutover_watermark::text FROM run_mode WHERE id = 1',
    );
    return runModeOf(rows[0]);
  } catch (err) {
    if (sqlState(err) === SqlState.undefinedTable) return PRODUCTION_MODE; // not migrated yet
    throw err;
  }
}

/**
 * The mode a CLI command other than `start` acts in: shadow when the database says so, or when
 * this command was configured as shadow (MSGX_SHADOW=true) — a command never leaves shadow by
 * itself; only a writer's start without --shadow cuts over.
 */
export async function commandMode(q: Queryable, cfg: Pick<Config, 'shadow'>): Promise<RunMode> {
  const stored = await readRunMode(q);
  if (stored.shadow || !cfg.shadow.enabled) return stored;
  return { ...stored, shadow: true, topicPrefix: stored.topicPrefix ?? cfg.shadow.topicPrefix };
}

/** Whether the decision at `position` was decided in shadow (its outputs stay in the shadow). */
export function decidedInShadow(mode: RunMode, position: string): boolean {
  if (mode.shadow) return true;
  return mode.cutoverPosition !== null && BigInt(position) <= BigInt(mode.cutoverPosition);
}

/** The mode as a running process reports it (/readyz, pipeline, /metrics, the compat entry): read per call. */
export type ModeProbe = () => Promise<RunMode>;

/**
 * A probe of the recorded mode; `forceShadow` (this process was started with --shadow or
 * MSGX_SHADOW=true) makes it shadow even before the writer has recorded it.
 */
export function createModeProbe(q: Queryable, forceShadow: { readonly shadow: boolean; readonly topicPrefix: string } | null = null): ModeProbe {
  return async () => {
    const stored = await readRunMode(q);
    if (stored.shadow || !forceShadow?.shadow) return stored;
    return { ...stored, shadow: true, topicPrefix: stored.topicPrefix ?? forceShadow.topicPrefix };
  };
}
