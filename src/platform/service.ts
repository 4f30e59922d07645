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

/**
 * Services started in order and stopped in reverse. A stop during start-up stops the service that
 * is still starting too (a standby waiting for the writer lock, a projector folding the log), so
 * its start() ends now rather than when it is done; the start then fails with "stopped during
 * start-up". A failing stop is logged and the others still stop.
 */
export class ServiceSequence {
  private readonly started: Service[] = [];
  private starting: Service | undefined;
  private stopped = false;

  constructor(private readonly logStopFailure: (err: unknown, service: string) => void) {}

  async start(services: readonly Service[]): Promise<void> {
    for (const s of services) {
      if (this.stopped) throw new Error('stopped during start-up');
      this.starting = s;
      try {
        await s.start();
      } finally {
        this.starting = undefined;
      }
      this.started.push(s);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const pending = this.starting;
    if (pending) await pending.stop().catch((err: unknown) => this.logStopFailure(err, pending.name));
    for (const s of this.started.reverse()) await s.stop().catch((err: unknown) => this.logStopFailure(err, s.name));
    this.started.length = 0;
  }
}
