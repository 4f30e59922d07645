/**
 * msgx's one error vocabulary (docs/architecture.md "Errors"). An error an operator can act on is a
 * MsgxError: it carries the process exit code and the HTTP status it maps to, and the CLI
 * (src/cli/main.ts) and the admin HTTP map it in one place each — one line, no stack. Anything
 * else is a bug or an outage: logged in full.
 */
export abstract class MsgxError extends Error {
  abstract readonly exitCode: number;
  abstract readonly httpStatus: number;

  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * msgx refuses to do what was asked, for a reason the operator can act on (another msgx runs on
 * this data folder, the database holds tables that are not msgx's, …): exit 1, HTTP 409. Nothing is
 * broken.
 */
export class RefusedError extends MsgxError {
  readonly exitCode: number = 1;
  readonly httpStatus: number = 409;
}

/** The request itself is wrong (a command line, an admin request body): exit 2, HTTP 400. */
export class UsageError extends MsgxError {
  readonly exitCode: number = 2;
  readonly httpStatus: number = 400;
}

/** A long operation ended early because its caller asked it to stop (a signal, a stop). */
export class CancelledError extends MsgxError {
  readonly exitCode: number = 130;
  readonly httpStatus: number = 503;

  constructor(what = 'cancelled') {
    super(what);
  }
}

/** An input over its size bound (docs/security.md): exit 2, HTTP 413. */
export class TooLargeError extends UsageError {
  override readonly httpStatus: number = 413;
}
