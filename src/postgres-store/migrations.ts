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
-- Every comment version a replica stored, per session issue. The projection is
-- a fold of these rows, so any replica (or a rebuild) derives the same state.
CREATE TABLE checkpost_comments (
  issue_key   text    NOT NULL,              -- "owner/repo#N", lower case
  comment_id  bigint  NOT NULL,
  author      text    NOT NULL,
  body        text    NOT NULL,
  created_at  text    NOT NULL,              -- as Forgejo sent it (RFC 3339); text keeps it byte-exact
  updated_at  text    NOT NULL,
  updated_ms  bigint  NOT NULL,              -- updated_at parsed; (updated_ms, body_hash) orders versions as the projection does
  body_hash   text    COLLATE "C" NOT NULL,
  html_url    text,
  deleted     boolean NOT NULL DEFAULT false,
  -- How many times a new version of this comment was stored (a duplicate or
  -- older delivery stores nothing). The chaos test checks it.
  applied     integer NOT NULL DEFAULT 1,
  -- Transaction that wrote this version: the change feed other replicas read.
  xid         xid8    NOT NULL DEFAULT pg_current_xact_id(),
  PRIMARY KEY (issue_key, comment_id)
);
CREATE INDEX checkpost_comments_feed ON checkpost_comments (issue_key, xid);

-- Webhook deliveries already handled (X-Forgejo-Delivery / X-GitHub-Delivery).
CREATE TABLE checkpost_deliveries (
  delivery_id text PRIMARY KEY,
  received_at timestamptz NOT NULL DEFAULT now()
);

-- One lease per session issue: its holder is the only writer of that issue.
-- token is the fencing token: it grows by one at every change of holder and
-- is never reused, so a deposed holder's writes can be told apart and refused.
CREATE TABLE checkpost_leases (
  issue_key   text        PRIMARY KEY,
  holder      text        NOT NULL,
  token       bigint      NOT NULL,
  expires_at  timestamptz NOT NULL,
  acquired_at timestamptz NOT NULL DEFAULT now()
);

-- State only the leader writes (poll watermark, alerts posted, dashboard), each
-- write carrying the fencing token it was made under.
CREATE TABLE checkpost_issue_state (
  issue_key text   NOT NULL,
  name      text   NOT NULL,
  value     jsonb  NOT NULL,
  token     bigint NOT NULL,
  PRIMARY KEY (issue_key, name)
);

-- Every write to Forgejo a leader starts (dashboard, alert, rollover, compaction),
-- with the fencing token it started under: a write is begun only while that
-- token is the issue's current, unexpired one, and the log lets anyone check
-- that no two holders ever wrote at once.
CREATE TABLE checkpost_write_log (
  id         bigserial   PRIMARY KEY,
  issue_key  text        NOT NULL,
  kind       text        NOT NULL,
  holder     text        NOT NULL,
  token      bigint      NOT NULL,
  started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  ended_at   timestamptz
);
CREATE INDEX checkpost_write_log_issue ON checkpost_write_log (issue_key, started_at);

-- Replicas alive recently: leases are spread so each holds about its share.
CREATE TABLE checkpost_replicas (
  replica_id text        PRIMARY KEY,
  seen_at    timestamptz NOT NULL
);
`,
  },
];
