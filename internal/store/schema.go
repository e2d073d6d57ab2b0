package store

// migrations holds the schema, one step per version: migrations[i] takes a
// store from version i to version i+1. PRAGMA user_version records the
// version reached. Steps are append-only: never edit a released one.
var migrations = []string{
	// v1: campaign, sessions with provenance, cells, runs, rows, host metrics,
	// and the settings found before the campaign first changed them.
	`
CREATE TABLE campaign (
	id           INTEGER PRIMARY KEY CHECK (id = 1),
	name         TEXT    NOT NULL,
	simulated    INTEGER NOT NULL,
	created_at   TEXT    NOT NULL,
	completed_at TEXT
);
CREATE TABLE sessions (
	id              INTEGER PRIMARY KEY,
	started_at      TEXT    NOT NULL,
	ended_at        TEXT,
	status          TEXT    NOT NULL DEFAULT 'running',
	pid             INTEGER NOT NULL,
	script          TEXT    NOT NULL,
	tool_version    TEXT    NOT NULL,
	fio_version     TEXT    NOT NULL,
	vcenter_version TEXT    NOT NULL,
	esxi_versions   TEXT    NOT NULL,
	testbed         TEXT    NOT NULL,
	target          TEXT    NOT NULL,
	simulated       INTEGER NOT NULL,
	plan            TEXT    NOT NULL
);
CREATE TABLE session_files (
	session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	path       TEXT    NOT NULL,
	sha256     TEXT    NOT NULL,
	bytes      INTEGER NOT NULL,
	PRIMARY KEY (session_id, path)
);
CREATE TABLE session_sets (
	session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	name       TEXT    NOT NULL,
	value      TEXT    NOT NULL,
	PRIMARY KEY (session_id, name)
);
CREATE TABLE cells (
	id       INTEGER PRIMARY KEY,
	label    TEXT    NOT NULL UNIQUE,
	position INTEGER NOT NULL
);
CREATE TABLE cell_levels (
	cell_id INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
	factor  TEXT    NOT NULL,
	level   TEXT    NOT NULL,
	PRIMARY KEY (cell_id, factor)
);
CREATE TABLE runs (
	id         INTEGER PRIMARY KEY,
	cell_id    INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
	workload   TEXT    NOT NULL,
	repeat     INTEGER NOT NULL,
	status     TEXT    NOT NULL CHECK (status IN ('ok', 'failed')),
	error      TEXT    NOT NULL,
	started_at TEXT    NOT NULL,
	ended_at   TEXT    NOT NULL,
	session_id INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
	simulated  INTEGER NOT NULL,
	notes      TEXT    NOT NULL,
	UNIQUE (cell_id, workload, repeat)
);
-- metrics are NULL where no I/O measured them (NaN in Go)
CREATE TABLE rows (
	run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	aggregate   INTEGER NOT NULL,
	worker      TEXT    NOT NULL,
	disk        TEXT    NOT NULL,
	direction   TEXT    NOT NULL,
	iops        REAL,
	mbps        REAL,
	lat_mean_us REAL,
	p50_us      REAL,
	p95_us      REAL,
	p99_us      REAL,
	p999_us     REAL,
	errors      INTEGER NOT NULL,
	simulated   INTEGER NOT NULL
);
CREATE INDEX rows_run ON rows(run_id);
CREATE TABLE host_metrics (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	host   TEXT    NOT NULL,
	metric TEXT    NOT NULL,
	at     TEXT    NOT NULL,
	value  REAL    NOT NULL
);
CREATE INDEX host_metrics_run ON host_metrics(run_id);
CREATE TABLE originals (
	factor TEXT PRIMARY KEY,
	token  TEXT NOT NULL
);
`,
	// v2: repeats are numbered from 1, as progress lines, reports and frames
	// show them (v1 stored them from 0). Two steps, so that no row takes a
	// number another still holds (runs are unique per cell, workload and repeat).
	`
UPDATE runs SET repeat = -(repeat + 1);
UPDATE runs SET repeat = -repeat;
`,
	// v3: what happened to the cluster during a run (a host failed, a
	// snapshot was taken, a second workload started), on the samples' time
	// axis: seconds after the measurement began.
	`
CREATE TABLE events (
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	at_s   REAL    NOT NULL,
	kind   TEXT    NOT NULL,
	target TEXT    NOT NULL,
	detail TEXT    NOT NULL
);
CREATE INDEX events_run ON events(run_id);
`,
	// v4: provenance kept whole: each run's files worth keeping (the rendered
	// job text, fio's raw output), and the contents of the files each
	// session loaded beside their hashes, all gzip-compressed (NULL in
	// sessions from before v4).
	`
CREATE TABLE artifacts (
	run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	name    TEXT    NOT NULL,
	content BLOB    NOT NULL,
	PRIMARY KEY (run_id, name)
);
ALTER TABLE session_files ADD COLUMN content BLOB;
`,
	// v5: rows name the fio job they belong to: a workload of several jobs
	// (a job file's sections) stores each job's rows and aggregates; ''
	// is a one-job workload's rows and the aggregate over all jobs.
	`
ALTER TABLE rows ADD COLUMN job TEXT NOT NULL DEFAULT '';
`,
	// v6: each run over time, as fio's per-interval logs (or the model)
	// give it: per job, direction and interval, t_s seconds after the
	// measurement began (the interval's end); NULL where nothing measured.
	`
CREATE TABLE samples (
	run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	job         TEXT    NOT NULL,
	direction   TEXT    NOT NULL,
	t_s         REAL    NOT NULL,
	iops        REAL,
	mbps        REAL,
	lat_mean_us REAL,
	p99_us      REAL
);
CREATE INDEX samples_run ON samples(run_id);
`,
	// v7: what each workload was when its runs were stored (a job's
	// options, a function's source), so that a resume notices a change.
	`
CREATE TABLE definitions (
	kind   TEXT NOT NULL,
	name   TEXT NOT NULL,
	sha256 TEXT NOT NULL,
	text   TEXT NOT NULL,
	PRIMARY KEY (kind, name)
);
`,
	// v8: factors as declared: their levels' Starlark type and order (text
	// in cell_levels, typed in frames and views), whether a factor is a load
	// (iodepth, VMs) rather than a setting; and the model version behind a
	// session's simulated runs ('' for measured ones).
	`
CREATE TABLE factors (
	name     TEXT    PRIMARY KEY,
	position INTEGER NOT NULL,
	type     TEXT    NOT NULL CHECK (type IN ('int', 'float', 'bool', 'text')),
	load     INTEGER NOT NULL,
	levels   TEXT    NOT NULL
);
ALTER TABLE sessions ADD COLUMN model_version TEXT NOT NULL DEFAULT '';
`,
}

// SchemaVersion is the schema version this build writes.
var SchemaVersion = len(migrations)
