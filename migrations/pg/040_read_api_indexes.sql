-- Read API: the board's keyset order (operation_day, scheduled_time with nulls last, flid).
CREATE INDEX flight_schd_board ON flight_schd (operation_day, coalesce(scheduled_time, 'infinity'::timestamptz), flid);
-- /metrics: sent deliveries per target after the last scraped event id (delivery latency histogram).
CREATE INDEX msg_event_sent ON msg_event (target, event_id) WHERE state = 'SENT';
