/** The outbox targets the dispatcher drains (msg_event.target). */
export const TARGETS = ['KAFKA_MSG', 'KAFKA_SCHD', 'COUTMSGS', 'AIDX'] as const;
export type Target = (typeof TARGETS)[number];

export function isTarget(s: string): s is Target {
  return (TARGETS as readonly string[]).includes(s);
}
