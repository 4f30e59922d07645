/**
 * The samples of a Prometheus text exposition as `series → value`, the series written as in the text
 * (`msgx_outbox_pending{target="KAFKA_MSG"}`), so a test states every gauge it expects in one
 * `toMatchObject` and a failure shows them all.
 */
export function metricSamples(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    out[line.slice(0, cut)] = Number(line.slice(cut + 1));
  }
  return out;
}
