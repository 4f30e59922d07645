import path from 'node:path';
import { UsageError } from './errors.ts';
import { z } from 'zod';

/**
 * The one place that reads `process.env`. Every MSGX_* variable of docs/contract/design.md §6 is parsed here,
 * validated with zod, and frozen. A bad value fails fast with a message naming the variable.
 */

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const msList = z
  .string()
  .trim()
  .regex(/^\d+(\s*,\s*\d+)*$/, 'must be a comma list of milliseconds, e.g. 1000,2000,4000')
  .transform((s) => s.split(',').map((x) => Number(x.trim())));

const bool = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no']))
  .transform((s) => s === 'true' || s === '1' || s === 'yes');

const url = (protocols: string[]) =>
  z
    .string()
    .trim()
    .refine((s) => {
      try {
        const protocol = new URL(s).protocol;
        // `postgres:user:secret` parses as an opaque path: not a database URL (and it would be echoed)
        return protocols.includes(protocol) && s.slice(protocol.length).startsWith('//');
      } catch {
        return false;
      }
    }, `must be a URL starting with ${protocols.join(' or ')}//`);

const timeZone = z
  .string()
  .trim()
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'must be an IANA time zone such as Asia/Shanghai');

function isOrigin(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === s.replace(/\/$/, '');
  } catch {
    return false;
  }
}

const topic = z.string().trim().regex(/^[A-Za-z0-9._-]{1,249}$/, 'must be a valid Kafka topic name');

const schema = z.object({
  MSGX_DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  MSGX_READ_DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  MSGX_MAILBOX_MYSQL_URL: url(['mysql:']).optional(),
  MSGX_KAFKA_BROKERS: z
    .string()
    .trim()
    .regex(/^[^,\s]+:\d+(\s*,\s*[^,\s]+:\d+)*$/, 'must be a comma list of host:port')
    .transform((s) => s.split(',').map((b) => b.trim()))
    .optional(),
  MSGX_KAFKA_TOPIC_MSG: topic.default('msg'),
  MSGX_KAFKA_TOPIC_SCHD: topic.default('schd'),
  MSGX_KAFKA_TOPIC_AIDX: topic.default('aidx'),
  MSGX_KAFKA_CLIENT_ID: z.string().trim().min(1).default('msgx'),
  MSGX_DATA_DIR: z.string().trim().min(1).default('./.msgx'),
  MSGX_HTTP_PORT: int(0, 65535).default(4000),
  // Loopback by default: exposing the API is a decision (docs/security.md), not an accident.
  MSGX_HTTP_HOST: z.string().trim().min(1).default('127.0.0.1'),
  MSGX_POLL_INTERVAL_MS: int(50).default(1000),
  MSGX_INGEST_BATCH: int(1, 100_000).default(500),
  MSGX_GAP_TIMEOUT_MS: int(0).default(60_000),
  MSGX_MAX_ATTEMPTS: int(1, 1000).default(5),
  MSGX_BACKOFF_MS: msList.default([1000, 2000, 4000, 8000, 16000]),
  MSGX_BACKOFF_CAP_MS: int(0).default(60_000),
  MSGX_HEAD_DEADLINE_MS: int(0).default(600_000),
  MSGX_HEAD_BLOCKED_WARN_MS: int(0).default(60_000),
  MSGX_DECODE_BUDGET_MS: int(1, 600_000).default(10_000),
  MSGX_HEAD_STALL_READY_MS: int(0).default(120_000),
  MSGX_ADMIN_TOKEN: z.string().trim().min(16, 'must be at least 16 characters (optionally label:secret)').optional(),
  MSGX_SCHD_FLUSH_MS: int(10).default(3000),
  MSGX_SCHD_FLUSH_LIMIT: int(1, 100_000).default(500),
  MSGX_IDENTITY_INCLUDE_DAY: bool.default(false),
  MSGX_AIRPORT_TZ: timeZone.default('Asia/Shanghai'),
  MSGX_AIRPORT_IATA: z.string().trim().regex(/^[A-Z]{3}$/, 'must be a three-letter IATA airport code').optional(),
  // AIDX out (docs/delivery.md "AIDX"): off by default; needs MSGX_AIRPORT_IATA.
  MSGX_AIDX_OUT: bool.default(false),
  MSGX_AIDX_ORIGINATOR: z.string().trim().min(1).max(16, 'must be 1 to 16 characters (AIDX Originator@Code)').default('MSGX'),
  MSGX_COUTMSGS_ROUTINGID: z.string().trim().min(1).max(23).default('MSGX'),
  MSGX_REQUEST_EXPIRE_MS: int(1000).default(3_600_000),
  MSGX_REQUEST_PLAN_DAILY_AT: z
    .string()
    .trim()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (airport local time)')
    .optional(),
  // Reference data (docs/contract/reference.md): VIPL personal data in the read API; ask for every kind at start.
  MSGX_EXPOSE_PERSONAL_DATA: bool.default(false),
  MSGX_REQUEST_REFERENCE_AT_START: bool.default(true),
  MSGX_ESDB_URL: url(['esdb:', 'esdb+discover:', 'kurrentdb:', 'kdb:']).optional(),
  // The server's MaxAppendSize (default 1 MiB, at most 16 MiB): docs/scaling.md "EventStoreDB".
  MSGX_ESDB_MAX_APPEND_BYTES: int(4096, 16 * 1024 * 1024).default(1024 * 1024),
  MSGX_ARCHIVE_AFTER_DAYS: int(1).default(1),
  MSGX_HISTORY_KEEP_DAYS: int(1).default(30),
  // --- security (docs/security.md) ---
  MSGX_ALLOWED_ORIGINS: z
    .string()
    .trim()
    .refine((s) => s.split(',').every((o) => isOrigin(o.trim())), 'must be a comma list of origins such as https://ops.example:8443')
    .transform((s) => s.split(',').map((o) => new URL(o.trim()).origin))
    .optional(),
  MSGX_HTTP_MAX_CONNECTIONS: int(1, 1_000_000).default(1000),
  MSGX_COMPAT_SENDERS: z
    .string()
    .trim()
    .regex(/^[^,\s]+(\s*,\s*[^,\s]+)*$/, 'must be a comma list of SNDR values')
    .transform((s) => s.split(',').map((x) => x.trim()))
    .optional(),
  MSGX_READ_STATEMENT_TIMEOUT_MS: int(100, 3_600_000).default(10_000),
  MSGX_REPLICA_READY_LAG_MS: int(0, 3_600_000).default(30_000),
  MSGX_INGEST_MAX_BYTES: int(1024, 1024 * 1024 * 1024).default(64 * 1024 * 1024),
  MSGX_INGEST_STALL_MS: int(1000).default(120_000),
  MSGX_CONSISTENCY_CHECK_ON_START: bool.default(true),
  MSGX_CONSISTENCY_CHECK_AT: z
    .string()
    .trim()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (airport local time)')
    .default('03:40'),
  MSGX_CONSISTENCY_SAMPLE_RATIO: z
    .string()
    .trim()
    .regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a ratio between 0 and 1, e.g. 0.01')
    .transform(Number)
    .default(0.01),
  // --- write-model snapshots, graceful stop (docs/recovery.md "Write-model snapshots", docs/operations.md) ---
  MSGX_SNAPSHOT_EVERY: int(1).default(50_000),
  MSGX_STOP_TIMEOUT_MS: int(1000, 600_000).default(10_000),
  MSGX_SHADOW: bool.default(false),
  MSGX_SHADOW_TOPIC_PREFIX: z.string().trim().regex(/^[A-Za-z0-9._-]{1,100}$/, 'must be a non-empty Kafka topic prefix such as shadow.').default('shadow.'),
  // --- connections and uploads (docs/security.md §2 HTTP) ---
  MSGX_HTTP_MAX_CONNECTIONS_PER_CLIENT: int(1, 1_000_000).default(128),
  MSGX_SUBSCRIPTIONS_MAX: int(0, 1_000_000).default(500),
  MSGX_SUBSCRIPTIONS_PER_CLIENT: int(0, 1_000_000).default(32),
  MSGX_UPLOAD_BUDGET_BYTES: int(16 * 1024 * 1024, 16 * 1024 * 1024 * 1024).default(64 * 1024 * 1024),
  MSGX_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

type Parsed = z.infer<typeof schema>;

export interface Config {
  readonly databaseUrl: string | undefined;
  readonly readDatabaseUrl: string | undefined;
  readonly mailboxMysqlUrl: string | undefined;
  readonly kafka: {
    readonly brokers: readonly string[] | undefined;
    readonly topicMsg: string;
    readonly topicSchd: string;
    /** MSGX_KAFKA_TOPIC_AIDX: the AIDX target's topic (docs/delivery.md "AIDX"). */
    readonly topicAidx: string;
    readonly clientId: string;
  };
  readonly dataDir: string;
  readonly http: { readonly port: number; readonly host: string };
  readonly pollIntervalMs: number;
  readonly ingestBatch: number;
  readonly gapTimeoutMs: number;
  readonly maxAttempts: number;
  readonly backoffMs: readonly number[];
  readonly backoffCapMs: number;
  readonly headDeadlineMs: number;
  /** A head FAILED for this long (since its first failure) gets one warn line. */
  readonly headBlockedWarnMs: number;
  /**
   * Time budget of one message's decode + decide (docs/architecture.md "Decode budget"): over it,
   * the message is PARKED (CODEC_ERROR) and the FIFO moves on.
   */
  readonly decodeBudgetMs: number;
  /** /readyz checks `pump` and `projector:<name>`: not ready while the FIFO head / a projector's checkpoint has not moved for this long with work waiting (0: off; docs/operations.md "Stalled heads"). */
  readonly headStallReadyMs: number;
  /** Bearer token of the /admin endpoints (`label:secret` names the operator `label`); unset → admin off. */
  readonly adminToken: string | undefined;
  readonly schdFlushMs: number;
  readonly schdFlushLimit: number;
  readonly identityIncludeDay: boolean;
  readonly airportTz: string;
  /** MSGX_AIRPORT_IATA: our airport's three-letter code — the direction of an AIDX leg in, the station of AIDX out (docs/contract/aidx.md); unset, AIDX in is PARKED. */
  readonly airportIata: string | undefined;
  /** MSGX_AIDX_OUT: publish the AIDX target (docs/delivery.md "AIDX"); true only with airportIata set. */
  readonly aidxOut: boolean;
  /** MSGX_AIDX_ORIGINATOR: AIDX Originator@Code and @CompanyShortName of published messages. */
  readonly aidxOriginator: string;
  readonly coutmsgsRoutingId: string;
  readonly requestExpireMs: number;
  readonly requestPlanDailyAt: string | undefined;
  readonly esdbUrl: string | undefined;
  /** MSGX_ESDB_MAX_APPEND_BYTES: the EventStoreDB server's MaxAppendSize; no append and no event the forwarder sends is larger. */
  readonly esdbMaxAppendBytes: number;
  /** Serve VIPL records whole and VIPL messages' raw XML (default: kind, code and VRNK only). */
  readonly exposePersonalData: boolean;
  /** A writer whose reference store is empty requests every kind (RQRD) once at start. */
  readonly requestReferenceAtStart: boolean;
  readonly archiveAfterDays: number;
  readonly historyKeepDays: number;
  readonly logLevel: Parsed['MSGX_LOG_LEVEL'];
  /** Browser origins allowed to call the API cross-origin (CORS) and to post to /cminmsgs/send; none → CORS off. */
  readonly allowedOrigins: readonly string[];
  readonly httpMaxConnections: number;
  /** SNDR values the compat entry accepts; undefined → any. */
  readonly compatSenders: readonly string[] | undefined;
  readonly readStatementTimeoutMs: number;
  /** /readyz of a read API on a replica turns not ready past this lag (docs/scaling.md "Read API replicas"). */
  readonly replicaReadyLagMs: number;
  /** XML bytes one ingest poll loads at most (a single larger row is still loaded alone). */
  readonly ingestMaxBytes: number;
  /** Ingest that has not completed a poll for this long makes /readyz not ready. */
  readonly ingestStallMs: number;
  /** The consistency sentinel of the writer (docs/operations.md). */
  readonly consistency: {
    readonly checkOnStart: boolean;
    /** HH:MM airport time of the daily sample check. */
    readonly checkAt: string;
    readonly sampleRatio: number;
  };
  /** Write-model snapshots: one every `every` decisions and at each new latest operation day. */
  readonly snapshot: { readonly every: number };
  /** A graceful stop (SIGTERM) ends within this; what is left is re-driven from PostgreSQL at the next start. */
  readonly stopTimeoutMs: number;
  /** Shadow run beside the legacy system (docs/contract/design.md §11; also `msgx start --shadow`). */
  readonly shadow: { readonly enabled: boolean; readonly topicPrefix: string };
  /** Per-client and global caps of the HTTP server (docs/security.md §2 HTTP). */
  readonly httpClients: {
    readonly maxConnectionsPerClient: number;
    readonly subscriptionsMax: number;
    readonly subscriptionsPerClient: number;
    /** Bytes of /cminmsgs/send bodies buffered at once, at most. */
    readonly uploadBudgetBytes: number;
  };
}

export class ConfigError extends UsageError {
  constructor(readonly problems: readonly { variable: string; message: string }[]) {
    super(
      'invalid configuration:\n' + problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n'),
    );
  }
}

/** Parse the environment (defaults to process.env). Empty strings count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const v = env[key];
    if (v !== undefined && v.trim() !== '') input[key] = v;
  }
  const res = schema.safeParse(input);
  if (!res.success) {
    throw new ConfigError(
      res.error.issues.map((i) => ({
        variable: String(i.path[0] ?? '?'),
        message: `${i.message}${input[String(i.path[0])] !== undefined ? ` (got ${JSON.stringify(redact(String(i.path[0]), input[String(i.path[0])]!))})` : ''}`,
      })),
    );
  }
  const p = res.data;
  if (p.MSGX_AIDX_OUT && p.MSGX_AIRPORT_IATA === undefined) {
    // An AIDX leg names both airports: without ours no valid message can be built (docs/delivery.md "AIDX").
    throw new ConfigError([{ variable: 'MSGX_AIDX_OUT', message: 'needs MSGX_AIRPORT_IATA (the airport msgx serves)' }]);
  }
  return Object.freeze({
    databaseUrl: p.MSGX_DATABASE_URL,
    readDatabaseUrl: p.MSGX_READ_DATABASE_URL ?? p.MSGX_DATABASE_URL,
    mailboxMysqlUrl: p.MSGX_MAILBOX_MYSQL_URL,
    kafka: Object.freeze({
      brokers: p.MSGX_KAFKA_BROKERS,
      topicMsg: p.MSGX_KAFKA_TOPIC_MSG,
      topicSchd: p.MSGX_KAFKA_TOPIC_SCHD,
      topicAidx: p.MSGX_KAFKA_TOPIC_AIDX,
      clientId: p.MSGX_KAFKA_CLIENT_ID,
    }),
    dataDir: path.resolve(p.MSGX_DATA_DIR),
    http: Object.freeze({ port: p.MSGX_HTTP_PORT, host: p.MSGX_HTTP_HOST }),
    pollIntervalMs: p.MSGX_POLL_INTERVAL_MS,
    ingestBatch: p.MSGX_INGEST_BATCH,
    gapTimeoutMs: p.MSGX_GAP_TIMEOUT_MS,
    maxAttempts: p.MSGX_MAX_ATTEMPTS,
    backoffMs: Object.freeze(p.MSGX_BACKOFF_MS),
    backoffCapMs: p.MSGX_BACKOFF_CAP_MS,
    headDeadlineMs: p.MSGX_HEAD_DEADLINE_MS,
    headBlockedWarnMs: p.MSGX_HEAD_BLOCKED_WARN_MS,
    decodeBudgetMs: p.MSGX_DECODE_BUDGET_MS,
    headStallReadyMs: p.MSGX_HEAD_STALL_READY_MS,
    adminToken: p.MSGX_ADMIN_TOKEN,
    schdFlushMs: p.MSGX_SCHD_FLUSH_MS,
    schdFlushLimit: p.MSGX_SCHD_FLUSH_LIMIT,
    identityIncludeDay: p.MSGX_IDENTITY_INCLUDE_DAY,
    airportTz: p.MSGX_AIRPORT_TZ,
    airportIata: p.MSGX_AIRPORT_IATA,
    aidxOut: p.MSGX_AIDX_OUT,
    aidxOriginator: p.MSGX_AIDX_ORIGINATOR,
    coutmsgsRoutingId: p.MSGX_COUTMSGS_ROUTINGID,
    requestExpireMs: p.MSGX_REQUEST_EXPIRE_MS,
    requestPlanDailyAt: p.MSGX_REQUEST_PLAN_DAILY_AT,
    esdbUrl: p.MSGX_ESDB_URL,
    esdbMaxAppendBytes: p.MSGX_ESDB_MAX_APPEND_BYTES,
    exposePersonalData: p.MSGX_EXPOSE_PERSONAL_DATA,
    requestReferenceAtStart: p.MSGX_REQUEST_REFERENCE_AT_START,
    archiveAfterDays: p.MSGX_ARCHIVE_AFTER_DAYS,
    historyKeepDays: p.MSGX_HISTORY_KEEP_DAYS,
    logLevel: p.MSGX_LOG_LEVEL,
    allowedOrigins: Object.freeze(p.MSGX_ALLOWED_ORIGINS ?? []),
    httpMaxConnections: p.MSGX_HTTP_MAX_CONNECTIONS,
    compatSenders: p.MSGX_COMPAT_SENDERS ? Object.freeze(p.MSGX_COMPAT_SENDERS) : undefined,
    readStatementTimeoutMs: p.MSGX_READ_STATEMENT_TIMEOUT_MS,
    replicaReadyLagMs: p.MSGX_REPLICA_READY_LAG_MS,
    ingestMaxBytes: p.MSGX_INGEST_MAX_BYTES,
    ingestStallMs: p.MSGX_INGEST_STALL_MS,
    consistency: Object.freeze({
      checkOnStart: p.MSGX_CONSISTENCY_CHECK_ON_START,
      checkAt: p.MSGX_CONSISTENCY_CHECK_AT,
      sampleRatio: p.MSGX_CONSISTENCY_SAMPLE_RATIO,
    }),
    snapshot: Object.freeze({ every: p.MSGX_SNAPSHOT_EVERY }),
    stopTimeoutMs: p.MSGX_STOP_TIMEOUT_MS,
    shadow: Object.freeze({ enabled: p.MSGX_SHADOW, topicPrefix: p.MSGX_SHADOW_TOPIC_PREFIX }),
    httpClients: Object.freeze({
      maxConnectionsPerClient: p.MSGX_HTTP_MAX_CONNECTIONS_PER_CLIENT,
      subscriptionsMax: p.MSGX_SUBSCRIPTIONS_MAX,
      subscriptionsPerClient: p.MSGX_SUBSCRIPTIONS_PER_CLIENT,
      uploadBudgetBytes: p.MSGX_UPLOAD_BUDGET_BYTES,
    }),
  });
}

/** Backoff before attempt `attempt + 1`, given `attempt` failures so far (1-based). */
export function backoffDelay(cfg: Pick<Config, 'backoffMs' | 'backoffCapMs'>, attempt: number): number {
  const steps = cfg.backoffMs;
  const step = steps[Math.min(Math.max(attempt, 1), steps.length) - 1] ?? 0;
  return Math.min(step, cfg.backoffCapMs);
}

/**
 * Longest pause between two tries while a dependency (PostgreSQL, the mailbox, Kafka) cannot be
 * reached. However long the outage, work resumes at most this long after the dependency is back
 * (docs/recovery.md: within 5 s); the backoff table still spaces the first tries. A try against a server
 * that is down costs one refused connection, so probing this often is cheap.
 */
export const OUTAGE_RETRY_MAX_MS = 2000;

/** `backoffDelay` for retrying an unreachable dependency: capped at OUTAGE_RETRY_MAX_MS. */
export function outageRetryDelay(cfg: Pick<Config, 'backoffMs' | 'backoffCapMs'>, attempt: number): number {
  return Math.min(backoffDelay(cfg, attempt), OUTAGE_RETRY_MAX_MS);
}

/** Hide passwords in URLs (user:password@, ?password=…, ?sslpassword=…) before they reach a log or an error. */
export function redactUrl(u: string): string {
  let parsed: URL;
  try {
    parsed = new URL(u);
  } catch {
    return redactUnparseable(u);
  }
  // `postgres:user:secret` parses, as an opaque path without a host: credentials could be anywhere
  if (!parsed.host && !u.trim().slice(parsed.protocol.length).startsWith('//')) return redactUnparseable(u);
  if (parsed.password) parsed.password = '***';
  for (const key of [...parsed.searchParams.keys()]) {
    if (/pass|secret|token/i.test(key)) parsed.searchParams.set(key, '***');
  }
  return parsed.toString();
}

/**
 * Not a URL we can take apart, so where its credentials end is a guess: keep only the scheme and
 * what follows the last '@' (the host part); without an '@', nothing but the scheme (docs/security.md).
 */
function redactUnparseable(u: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*:(\/\/)?)/i.exec(u)?.[1] ?? '';
  const at = u.lastIndexOf('@');
  if (at < 0) return `${scheme}*** (not a URL with a host; ${u.length} characters)`;
  return `${scheme}***@${u.slice(at + 1).replace(/(pass\w*|secret|token)=[^&\s]*/gi, '$1=***')}`;
}

function redact(key: string, value: string): string {
  if (key.endsWith('_TOKEN')) return '***';
  return key.endsWith('_URL') ? redactUrl(value) : value;
}
