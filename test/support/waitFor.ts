/**
 * Wait until `probe` returns a truthy value (returned), polling without fixed sleeps in the test body.
 * Fails with the last value / error after `timeoutMs`.
 */
export async function waitFor<T>(
  probe: () => Promise<T> | T,
  { timeoutMs = 15_000, intervalMs = 20, what = 'condition' }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
