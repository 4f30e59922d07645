/** The outbox targets the dispatcher drains (msg_event.target). */
export const TARGETS = ['KAFKA_MSG', 'KAFKA_SCHD', 'COUTMSGS'] as const;
export type Target = (typeof TARGETS)[number];

export function isTarget(s: string): s is Target {
  return (TARGETS as readonly string[]).includes(s);
}

/** NOTIFY channel of the outbox (payload: the target that got rows). */
export const OUTBOX_CHANNEL = 'msgx_outbox';
