-- Projections: the two projectors' checkpoints exist from the start (so `pipeline` shows their lag
-- before they first run), and the plan-snapshot generation count has an index.
INSERT INTO projection_checkpoint (name) VALUES ('flights'), ('outbox') ON CONFLICT (name) DO NOTHING;

CREATE INDEX schd_snap_log_day ON schd_snap_log (day, position);
