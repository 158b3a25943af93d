-- worldprobe results in PostgreSQL, schema version 1: the SQLite schema
-- (schema.sql) with a run column, since one database holds many runs.
CREATE TABLE IF NOT EXISTS worldprobe_trials (
  run          TEXT NOT NULL,
  key          TEXT NOT NULL,
  task         TEXT NOT NULL,
  category     TEXT NOT NULL,
  difficulty   TEXT NOT NULL,
  variant      TEXT NOT NULL DEFAULT '',
  model        TEXT NOT NULL,
  candidate    TEXT NOT NULL,
  sample       INTEGER NOT NULL,
  outcome      TEXT NOT NULL,
  crash_kind   TEXT NOT NULL DEFAULT '',
  pass         BOOLEAN NOT NULL,
  v_cov        DOUBLE PRECISION NOT NULL,
  a_cov        DOUBLE PRECISION NOT NULL,
  s_cov        DOUBLE PRECISION NOT NULL,
  t_cov        DOUBLE PRECISION NOT NULL,
  attribution  TEXT NOT NULL DEFAULT '',
  duration_ms  DOUBLE PRECISION NOT NULL,
  doc          TEXT NOT NULL,
  PRIMARY KEY (run, key)
);
CREATE INDEX IF NOT EXISTS worldprobe_trials_model ON worldprobe_trials (run, model, category);
CREATE TABLE IF NOT EXISTS worldprobe_assertions (
  run       TEXT NOT NULL,
  trial_key TEXT NOT NULL,
  idx       INTEGER NOT NULL,
  probe     TEXT NOT NULL,
  level     TEXT NOT NULL,
  status    TEXT NOT NULL,
  message   TEXT NOT NULL,
  expr      TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run, trial_key, idx),
  FOREIGN KEY (run, trial_key) REFERENCES worldprobe_trials (run, key) ON DELETE CASCADE
);
-- Each run's plan: how many trials it holds.
CREATE TABLE IF NOT EXISTS worldprobe_runs (
  run     TEXT PRIMARY KEY,
  planned INTEGER NOT NULL
);
