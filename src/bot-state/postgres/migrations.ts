/**
 * The PostgreSQL schema, as an ordered list of forward-only SQL migrations.
 * Each is applied once, in its own transaction, and recorded in
 * checkpost_schema_migrations with a hash of its text (an applied migration
 * that was edited afterwards is refused at start). Kept as strings in a module,
 * not .sql files, so the compiled and bundled bot carries them with no file
 * lookup. Never edit an entry that has shipped: append a new one.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial",
    sql: `
-- Every comment a replica learned (webhook, poll, reconcile), newest version
-- each, per session issue, with tombstones for deletes. Fields as in the
-- ProjectionStore's StoredComment.
CREATE TABLE checkpost_comments (
  issue_key   text    NOT NULL,              -- "owner/repo#n", lower case
  comment_id  bigint  NOT NULL,
  author      text    NOT NULL,
  created_at  text    NOT NULL,              -- as Forgejo sent it (RFC 3339); text keeps it byte-exact
  updated_at  text    NOT NULL,
  updated_ms  bigint,                        -- null: a tombstone whose content was never seen
  hash        text    COLLATE "C" NOT NULL,  -- bodyHash(); (updated_ms, hash) orders versions as the projection does
  multi       boolean NOT NULL DEFAULT false,
  body        text,                          -- protocol comments only
  html_url    text,
  deleted     boolean NOT NULL DEFAULT false,
  -- How many times this row changed (the chaos test checks each comment's count).
  applied     integer NOT NULL DEFAULT 1,
  -- Transaction that wrote this version: the change feed other replicas fold.
  xid         xid8    NOT NULL DEFAULT pg_current_xact_id(),
  PRIMARY KEY (issue_key, comment_id)
);
CREATE INDEX checkpost_comments_feed ON checkpost_comments (issue_key, xid, comment_id);

CREATE TABLE checkpost_watermarks (
  issue_key         text     PRIMARY KEY,
  updated_at_second bigint   NOT NULL,
  ids_in_second     bigint[] NOT NULL
);

-- Webhook deliveries already applied (X-Forgejo-Delivery), on any replica.
CREATE TABLE checkpost_deliveries (
  delivery_id text   PRIMARY KEY,
  received_ms bigint NOT NULL
);
CREATE INDEX checkpost_deliveries_age ON checkpost_deliveries (received_ms);

CREATE TABLE checkpost_entries (
  issue_key text  NOT NULL,
  agent     text  COLLATE "C" NOT NULL,
  session   text  COLLATE "C" NOT NULL,
  entry     jsonb NOT NULL,
  PRIMARY KEY (issue_key, agent, session)
);

CREATE TABLE checkpost_resume_index (
  issue_key text   PRIMARY KEY,
  index     jsonb  NOT NULL,
  token     bigint NOT NULL
);

CREATE TABLE checkpost_alerts (
  issue_key text   NOT NULL,
  alert_key text   NOT NULL,
  token     bigint NOT NULL,
  PRIMARY KEY (issue_key, alert_key)
);

CREATE TABLE checkpost_issue_meta (
  issue_key text  PRIMARY KEY,
  meta      jsonb NOT NULL
);

-- One lease per name (a session issue): its holder is the only writer.
-- token is the fencing token: it grows at every acquisition, never reused.
-- Times are Unix ms by the store's clock (PostgreSQL's, unless a test sets one).
CREATE TABLE checkpost_leases (
  name        text   PRIMARY KEY,
  holder      text   NOT NULL,
  token       bigint NOT NULL,
  expires_ms  bigint NOT NULL,
  acquired_ms bigint NOT NULL
);

-- Every write to Forgejo a leader starts (dashboard, alert, rollover, compaction),
-- with the fencing token it was begun under: begun only while that token is the
-- lease's current, unexpired one. Lets anyone check no two holders wrote at once.
CREATE TABLE checkpost_write_log (
  id         bigserial PRIMARY KEY,
  name       text      NOT NULL,
  kind       text      NOT NULL,
  holder     text      NOT NULL,
  token      bigint    NOT NULL,
  started_ms bigint    NOT NULL,
  ended_ms   bigint
);
CREATE INDEX checkpost_write_log_name ON checkpost_write_log (name, started_ms);

-- Replicas seen recently: leases are spread so each holds about its share.
CREATE TABLE checkpost_replicas (
  replica_id text   PRIMARY KEY,
  seen_ms    bigint NOT NULL
);
`,
  },
  {
    version: 2,
    name: "projection state",
    sql: `
-- What a replica's bounded projection folded away (Projection.sealedState, JSON text), so a restart parses only the newest comments.
CREATE TABLE checkpost_projection_state (
  issue_key text PRIMARY KEY,
  state     text NOT NULL
);
`,
  },
  {
    version: 3,
    name: "commands",
    sql: `
-- People's commands already claimed (a slash comment by comment id, a dashboard tick by
-- render and box): each runs at most once, whichever replica or path sees it (ControlDesk).
CREATE TABLE checkpost_commands (
  issue_key   text   NOT NULL,
  command_key text   NOT NULL,
  outcome     text   NOT NULL,
  at_ms       bigint NOT NULL,
  PRIMARY KEY (issue_key, command_key)
);
`,
  },
  {
    version: 4,
    name: "change notifications",
    sql: `
-- Wake followers the moment a comment row changes (LISTEN checkpost_comments), instead of at their
-- next feed poll. One notification per issue and statement, sent at commit; identical ones in a
-- transaction are folded into one by PostgreSQL. The payload is the issue key: the follower then
-- reads the feed as it would on a poll, so a lost notification only delays, never loses, a change.
CREATE FUNCTION checkpost_notify_comments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('checkpost_comments', k) FROM (SELECT DISTINCT issue_key AS k FROM changed) AS t;
  RETURN NULL;
END
$$;
-- Transition tables allow one event per trigger: one for INSERT, one for UPDATE.
CREATE TRIGGER checkpost_comments_notify_insert AFTER INSERT ON checkpost_comments
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION checkpost_notify_comments();
CREATE TRIGGER checkpost_comments_notify_update AFTER UPDATE ON checkpost_comments
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION checkpost_notify_comments();
`,
  },
];
