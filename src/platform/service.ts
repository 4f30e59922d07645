/** A long-running part of the process (ingest loop, pump, projector, dispatcher, HTTP server). */
export interface Service {
  readonly name: string;
  start(): Promise<void>;
  /** Finish the current unit of work and stop; must be safe to call twice. */
  stop(): Promise<void>;
}

/** A readiness probe of one dependency, used by /readyz. Throws when not ready. */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<void>;
}
