/**
 * A failed send, classified. `transient` failures (the target is unreachable or busy) keep the head
 * PENDING with backoff for as long as they last, so an outage blocks its target but never turns
 * deliveries DEAD or reorders them. Permanent failures (the target refused this record) count
 * towards MSGX_MAX_ATTEMPTS, after which the row goes DEAD and the target moves on.
 */
export class DeliveryFailure extends Error {
  override name = 'DeliveryFailure';
  constructor(
    message: string,
    readonly transient: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Anything a sender throws that it did not classify counts as permanent (it is not an outage we know). */
export function asDeliveryFailure(err: unknown): DeliveryFailure {
  if (err instanceof DeliveryFailure) return err;
  return new DeliveryFailure(err instanceof Error ? err.message : String(err), false, { cause: err });
}
