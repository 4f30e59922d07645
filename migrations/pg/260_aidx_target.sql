-- The AIDX delivery target (docs/delivery.md "AIDX"): msg_event rows with target 'AIDX'.
ALTER TABLE msg_event DROP CONSTRAINT IF EXISTS msg_event_target_check;
ALTER TABLE msg_event ADD CONSTRAINT msg_event_target_check CHECK (target IN ('KAFKA_MSG', 'KAFKA_SCHD', 'COUTMSGS', 'AIDX'));
