-- Emulation of the shared MySQL mailbox inside the own PostgreSQL, used when MSGX_MAILBOX_MYSQL_URL
-- is unset (embedded default, development). Same columns as the MySQL tables (messages.md).
CREATE SCHEMA mailbox;

CREATE TABLE mailbox.cminmsgs (
  cminmsgs_id                  bigserial PRIMARY KEY,
  cminmsgs_clob_msg            text NOT NULL,
  cminmsgs_date_received       timestamp,
  cminmsgs_date_processed      timestamp,
  cminmsgs_subsystem_name      varchar(4),
  cminmsgs_subsystem_sequence  integer,
  cminmsgs_subsystem_date_sent timestamp,
  cminmsgs_subsystem_subtype   varchar(4),
  cminmsgs_subsystem_type      varchar(4),
  cminmsgs_status              varchar(20)
);

CREATE TABLE mailbox.coutmsgs (
  coutmsgs_id             bigserial PRIMARY KEY,
  coutmsgs_clob_msg       text,
  coutmsgs_date_inserted  timestamp NOT NULL,
  coutmsgs_date_sent      timestamp,
  routingid               varchar(23) NOT NULL,
  coutmsgs_group_flag     smallint NOT NULL DEFAULT 0,
  coutmsgs_ack_flag       smallint NOT NULL DEFAULT 0,
  coutmsgs_encrypt_flag   smallint NOT NULL DEFAULT 0,
  coutmsgs_error_flag     smallint NOT NULL DEFAULT 0
);
