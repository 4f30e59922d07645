import type { Config } from '../../platform/config.ts';

/**
 * Configurations a shadow run refuses at start, each with its reason (docs/contract/design.md §11: a
 * configuration that cannot be shadowed safely is refused). The database-side refusals (a database
 * that acted as production, a changed topic prefix) are in runModeChange.ts `enterShadow`.
 */
export function unsafeForShadow(cfg: Config): string[] {
  const out: string[] = [];
  if (cfg.esdbUrl !== undefined) {
    out.push(
      'MSGX_ESDB_URL is set: the EventStoreDB forwarder has no shadow streams and would append the shadow\'s ' +
        'decisions where production readers follow them; unset it for the shadow run',
    );
  }
  const prefixed = [cfg.kafka.topicMsg, cfg.kafka.topicSchd].map((t) => cfg.shadow.topicPrefix + t);
  for (const [i, t] of prefixed.entries()) {
    if (t === cfg.kafka.topicMsg || t === cfg.kafka.topicSchd) {
      out.push(`MSGX_SHADOW_TOPIC_PREFIX '${cfg.shadow.topicPrefix}' makes the shadow topic '${t}' a production topic (${i === 0 ? 'msg' : 'schd'})`);
    }
  }
  return out;
}
