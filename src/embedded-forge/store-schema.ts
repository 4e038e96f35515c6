/** SQLite schema of the embedded forge (one statement list, applied idempotently). */
export const FORGE_SCHEMA = `
CREATE TABLE IF NOT EXISTS users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  login TEXT NOT NULL,
  lower_name TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL DEFAULT '',
  email TEXT NOT NULL,
  is_admin INTEGER NOT NULL DEFAULT 0,
  created_unix INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS passwords (
  user_id INTEGER PRIMARY KEY REFERENCES users(id),
  hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_unix INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS repos (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  owner_id INTEGER NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  lower_name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  private INTEGER NOT NULL DEFAULT 0,
  created_unix INTEGER NOT NULL,
  updated_unix INTEGER NOT NULL,
  UNIQUE (owner_id, lower_name)
);
CREATE TABLE IF NOT EXISTS collaborators (
  repo_id INTEGER NOT NULL REFERENCES repos(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  mode TEXT NOT NULL,
  PRIMARY KEY (repo_id, user_id)
);
CREATE TABLE IF NOT EXISTS issues (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  repo_id INTEGER NOT NULL REFERENCES repos(id),
  idx INTEGER NOT NULL,
  poster_id INTEGER NOT NULL REFERENCES users(id),
  title TEXT NOT NULL,
  body TEXT NOT NULL DEFAULT '',
  is_closed INTEGER NOT NULL DEFAULT 0,
  is_pull INTEGER NOT NULL DEFAULT 0,
  is_locked INTEGER NOT NULL DEFAULT 0,
  num_comments INTEGER NOT NULL DEFAULT 0,
  created_unix INTEGER NOT NULL,
  updated_unix INTEGER NOT NULL,
  closed_unix INTEGER NOT NULL DEFAULT 0,
  UNIQUE (repo_id, idx)
);
CREATE INDEX IF NOT EXISTS issues_repo_updated ON issues (repo_id, updated_unix);
CREATE TABLE IF NOT EXISTS labels (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  repo_id INTEGER NOT NULL REFERENCES repos(id),
  name TEXT NOT NULL,
  color TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  exclusive INTEGER NOT NULL DEFAULT 0,
  is_archived INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS labels_repo ON labels (repo_id, name);
CREATE TABLE IF NOT EXISTS issue_labels (
  issue_id INTEGER NOT NULL REFERENCES issues(id),
  label_id INTEGER NOT NULL REFERENCES labels(id),
  PRIMARY KEY (issue_id, label_id)
);
CREATE INDEX IF NOT EXISTS issue_labels_label ON issue_labels (label_id, issue_id);
CREATE TABLE IF NOT EXISTS comments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  issue_id INTEGER NOT NULL REFERENCES issues(id),
  poster_id INTEGER NOT NULL REFERENCES users(id),
  body TEXT NOT NULL,
  created_unix INTEGER NOT NULL,
  updated_unix INTEGER NOT NULL,
  content_version INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS comments_issue_id ON comments (issue_id, id);
CREATE INDEX IF NOT EXISTS comments_issue_updated ON comments (issue_id, updated_unix);
CREATE INDEX IF NOT EXISTS comments_issue_created ON comments (issue_id, created_unix, id);
CREATE TABLE IF NOT EXISTS attachments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid TEXT NOT NULL UNIQUE,
  issue_id INTEGER NOT NULL REFERENCES issues(id),
  comment_id INTEGER NOT NULL DEFAULT 0,
  uploader_id INTEGER NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  data BLOB NOT NULL,
  created_unix INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS attachments_issue ON attachments (issue_id, id);
-- An issue's number comes from a per-repository counter that only goes up, so a deleted issue's number is
-- never given again (Forgejo v13.0.5 models/issues/issue_update.go:433 takes db.GetNextResourceIndex,
-- models/db/index.go:98, from the issue_index table; only deleting the repository resets it,
-- services/repository/delete.go:213).
CREATE TABLE IF NOT EXISTS issue_index (
  repo_id INTEGER PRIMARY KEY,
  max_index INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS cross_refs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ref_issue_id INTEGER NOT NULL,
  ref_comment_id INTEGER NOT NULL,
  issue_id INTEGER NOT NULL,
  neutered INTEGER NOT NULL DEFAULT 0,
  created_unix INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS cross_refs_origin ON cross_refs (ref_issue_id, ref_comment_id);
CREATE TABLE IF NOT EXISTS hooks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  repo_id INTEGER NOT NULL REFERENCES repos(id),
  type TEXT NOT NULL,
  url TEXT NOT NULL,
  content_type TEXT NOT NULL,
  secret TEXT NOT NULL DEFAULT '',
  events TEXT NOT NULL,
  active INTEGER NOT NULL,
  authorization_header TEXT NOT NULL DEFAULT '',
  branch_filter TEXT NOT NULL DEFAULT '',
  created_unix INTEGER NOT NULL,
  updated_unix INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS orgs (
  user_id INTEGER PRIMARY KEY REFERENCES users(id)
);
CREATE TABLE IF NOT EXISTS teams (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  org_id INTEGER NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  access_mode TEXT NOT NULL,
  units TEXT NOT NULL,
  UNIQUE (org_id, name)
);
CREATE TABLE IF NOT EXISTS team_users (
  team_id INTEGER NOT NULL REFERENCES teams(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  PRIMARY KEY (team_id, user_id)
);
CREATE TABLE IF NOT EXISTS team_repos (
  team_id INTEGER NOT NULL REFERENCES teams(id),
  repo_id INTEGER NOT NULL REFERENCES repos(id),
  PRIMARY KEY (team_id, repo_id)
);
`;
