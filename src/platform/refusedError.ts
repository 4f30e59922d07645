/**
 * msgx refuses to do what was asked, for a reason the operator can act on (another msgx runs on
 * this data folder, the database holds tables that are not msgx's, …). The CLI prints the message
 * as one line and exits 1 — no stack trace: nothing is broken.
 */
export class RefusedError extends Error {
  override name = 'RefusedError';
}
