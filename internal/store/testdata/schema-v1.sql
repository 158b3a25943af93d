-- worldprobe results, schema version 1.
CREATE TABLE IF NOT EXISTS trials (
  key          TEXT PRIMARY KEY,
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
  v_cov        REAL NOT NULL,
  a_cov        REAL NOT NULL,
  s_cov        REAL NOT NULL,
  t_cov        REAL NOT NULL,
  attribution  TEXT NOT NULL DEFAULT '',
  duration_ms  REAL NOT NULL,
  doc          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS trials_model ON trials (model, category);
CREATE TABLE IF NOT EXISTS assertions (
  trial_key TEXT NOT NULL REFERENCES trials (key) ON DELETE CASCADE,
  idx       INTEGER NOT NULL,
  probe     TEXT NOT NULL,
  level     TEXT NOT NULL,
  status    TEXT NOT NULL,
  message   TEXT NOT NULL,
  expr      TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (trial_key, idx)
);
-- The run's plan: how many trials it holds (one row).
CREATE TABLE IF NOT EXISTS plan (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  planned INTEGER NOT NULL
);
