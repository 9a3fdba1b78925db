"""Forward-only, numbered schema migrations tracked in ``user_version``."""

from __future__ import annotations

from collections.abc import Callable

import apsw

from incremind_daemon.store.snapshots import parse_rendered_snapshot, snapshot_json

SCHEMA_V1 = """
CREATE TABLE sources (
    id            INTEGER PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('file', 'session', 'note')),
    project       TEXT NOT NULL,
    title         TEXT NOT NULL,
    sha256        TEXT,
    raw_path      TEXT,               -- kept original, relative to the home folder
    original_name TEXT,
    media_type    TEXT,
    size_bytes    INTEGER NOT NULL DEFAULT 0,
    raw_text      TEXT NOT NULL,      -- extracted text; offsets of every derived row point into it
    pages         TEXT NOT NULL DEFAULT '[]',  -- JSON [[offset, page], ...] for paged originals
    created_at    TEXT NOT NULL,
    last_seen_at  TEXT NOT NULL,
    seen_count    INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX sources_by_sha ON sources (sha256) WHERE sha256 IS NOT NULL;
CREATE INDEX sources_by_project ON sources (project, created_at);

CREATE TABLE chunks (
    id         INTEGER PRIMARY KEY,
    source_id  INTEGER NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    text       TEXT NOT NULL,
    start      INTEGER NOT NULL,
    "end"      INTEGER NOT NULL,
    page       INTEGER,
    UNIQUE (source_id, seq)
);
CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    text, content='chunks', content_rowid='id', tokenize='porter incremind'
);
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;

CREATE TABLE summaries (
    id          INTEGER PRIMARY KEY,
    source_id   INTEGER NOT NULL UNIQUE REFERENCES sources (id) ON DELETE CASCADE,
    index_line  TEXT NOT NULL,
    summary     TEXT NOT NULL,
    spans       TEXT NOT NULL DEFAULT '[]',   -- JSON [[start, end], ...] of the picked sentences
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE VIRTUAL TABLE summaries_fts USING fts5 (
    index_line, summary, content='summaries', content_rowid='id', tokenize='porter incremind'
);
CREATE TRIGGER summaries_ai AFTER INSERT ON summaries BEGIN
    INSERT INTO summaries_fts (rowid, index_line, summary) VALUES (new.id, new.index_line, new.summary);
END;
CREATE TRIGGER summaries_ad AFTER DELETE ON summaries BEGIN
    INSERT INTO summaries_fts (summaries_fts, rowid, index_line, summary)
        VALUES ('delete', old.id, old.index_line, old.summary);
END;
CREATE TRIGGER summaries_au AFTER UPDATE ON summaries BEGIN
    INSERT INTO summaries_fts (summaries_fts, rowid, index_line, summary)
        VALUES ('delete', old.id, old.index_line, old.summary);
    INSERT INTO summaries_fts (rowid, index_line, summary) VALUES (new.id, new.index_line, new.summary);
END;

CREATE TABLE insights (
    id            INTEGER PRIMARY KEY,
    project       TEXT NOT NULL,
    category      TEXT NOT NULL CHECK (category IN
                  ('identity', 'preference', 'correction', 'entity', 'event', 'method')),
    statement     TEXT NOT NULL,
    condition     TEXT NOT NULL DEFAULT '',
    relation      TEXT NOT NULL DEFAULT 'new' CHECK (relation IN ('new', 'supplement', 'different')),
    status        TEXT NOT NULL DEFAULT 'pending' CHECK (status IN
                  ('pending', 'confirmed', 'rejected', 'forgotten', 'superseded')),
    confidence    REAL NOT NULL DEFAULT 0.5,
    hotness       REAL NOT NULL DEFAULT 1.0,
    revision      INTEGER NOT NULL DEFAULT 1,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    last_used_at  TEXT
);
CREATE INDEX insights_by_status ON insights (project, status);
CREATE TABLE insight_revisions (
    insight_id  INTEGER NOT NULL REFERENCES insights (id),
    revision    INTEGER NOT NULL,
    statement   TEXT NOT NULL,
    condition   TEXT NOT NULL,
    at          TEXT NOT NULL,
    PRIMARY KEY (insight_id, revision)
);
CREATE TABLE insight_sources (
    insight_id  INTEGER NOT NULL REFERENCES insights (id),
    source_id   INTEGER NOT NULL REFERENCES sources (id),
    chunk_id    INTEGER REFERENCES chunks (id),
    quote       TEXT NOT NULL,
    start       INTEGER NOT NULL,
    "end"       INTEGER NOT NULL,
    added_at    TEXT NOT NULL
);
CREATE INDEX insight_sources_by_insight ON insight_sources (insight_id);
CREATE TABLE links (
    from_id   INTEGER NOT NULL REFERENCES insights (id),
    to_id     INTEGER NOT NULL REFERENCES insights (id),
    relation  TEXT NOT NULL,   -- refutes, supplements, supersedes
    at        TEXT NOT NULL,
    PRIMARY KEY (from_id, to_id, relation)
);
CREATE VIRTUAL TABLE insights_fts USING fts5 (
    statement, condition, content='insights', content_rowid='id', tokenize='porter incremind'
);
CREATE TRIGGER insights_ai AFTER INSERT ON insights BEGIN
    INSERT INTO insights_fts (rowid, statement, condition) VALUES (new.id, new.statement, new.condition);
END;
CREATE TRIGGER insights_au AFTER UPDATE OF statement, condition ON insights BEGIN
    INSERT INTO insights_fts (insights_fts, rowid, statement, condition)
        VALUES ('delete', old.id, old.statement, old.condition);
    INSERT INTO insights_fts (rowid, statement, condition) VALUES (new.id, new.statement, new.condition);
END;

-- Append-only: state changes and outcomes, never updated or deleted.
CREATE TABLE audit (
    id      INTEGER PRIMARY KEY,
    at      TEXT NOT NULL,
    actor   TEXT NOT NULL,      -- daemon, cli, mcp, ...
    action  TEXT NOT NULL,      -- ingest, duplicate, failed, confirm, ...
    target  TEXT NOT NULL,      -- an item id or a path
    detail  TEXT NOT NULL DEFAULT '{}'
);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;

-- One row per inbox file taken in, committed with the rows it produced, so a
-- restart after a crash between commit and unlink finishes the unlink instead
-- of counting the file twice.
CREATE TABLE inbox_claims (
    path       TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    mtime_ns   INTEGER NOT NULL,   -- tells a crash retry from the same bytes dropped again
    size_bytes INTEGER NOT NULL,
    outcome    TEXT NOT NULL CHECK (outcome IN ('stored', 'duplicate')),
    source_id  INTEGER REFERENCES sources (id),
    at         TEXT NOT NULL,
    PRIMARY KEY (path, sha256, mtime_ns)
);
"""

SCHEMA_V2 = """
-- Agent sessions: one 'session' source each, its messages the raw tier.
CREATE TABLE sessions (
    source_id       INTEGER PRIMARY KEY REFERENCES sources (id),
    agent           TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    cwd             TEXT,
    git_branch      TEXT,
    model           TEXT,
    started_at      TEXT,
    last_message_at TEXT,
    summary_stale   INTEGER NOT NULL DEFAULT 1,
    UNIQUE (agent, session_id)
);
CREATE INDEX sessions_by_last ON sessions (last_message_at);
CREATE INDEX sessions_stale ON sessions (summary_stale) WHERE summary_stale = 1;

CREATE TABLE messages (
    id          INTEGER PRIMARY KEY,
    source_id   INTEGER NOT NULL REFERENCES sources (id),
    message_id  TEXT NOT NULL,       -- the agent's own id: re-reading a file never duplicates
    seq         INTEGER NOT NULL,    -- order of first arrival
    role        TEXT NOT NULL,
    text        TEXT NOT NULL,
    at          TEXT,
    subagent    INTEGER NOT NULL DEFAULT 0,
    dropped     INTEGER NOT NULL DEFAULT 0,   -- rewound away by the agent; kept, never shown
    start       INTEGER NOT NULL DEFAULT 0,   -- offsets of text in the session's raw text
    "end"       INTEGER NOT NULL DEFAULT 0,
    UNIQUE (source_id, message_id)
);
CREATE INDEX messages_in_order ON messages (source_id, at, seq);
CREATE INDEX messages_unplaced ON messages (source_id, seq) WHERE "end" = 0;
CREATE VIRTUAL TABLE messages_fts USING fts5 (
    text, content='messages', content_rowid='id', tokenize='porter incremind'
);
CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER messages_au AFTER UPDATE OF text ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO messages_fts (rowid, text) VALUES (new.id, new.text);
END;

-- Per transcript file: how far it has been read, committed with the messages read.
CREATE TABLE tail_files (
    path        TEXT PRIMARY KEY,
    agent       TEXT NOT NULL,
    dev         INTEGER NOT NULL,
    inode       INTEGER NOT NULL,
    size        INTEGER NOT NULL,
    head_hash   TEXT NOT NULL,
    head_len    INTEGER NOT NULL,
    offset      INTEGER NOT NULL,
    source_id   INTEGER REFERENCES sources (id),
    messages    INTEGER NOT NULL DEFAULT 0,
    skipped     TEXT,                -- why the file is not read (excluded, the daemon's own), if so
    last_error  TEXT,
    updated_at  TEXT NOT NULL
);

CREATE TABLE meta (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
"""

SCHEMA_V3 = """
-- Embedding models with vector tables (vec_<key>, created when a model is first used).
CREATE TABLE vector_models (
    key         TEXT PRIMARY KEY,       -- name, dimension and manifest digest: spaces never mix
    name        TEXT NOT NULL,
    dimension   INTEGER NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('active', 'building', 'retired')),
    created_at  TEXT NOT NULL
);
-- Items whose text is new or changed since a model embedded them; drained by the worker.
CREATE TABLE embed_queue (
    model_key  TEXT NOT NULL,
    kind       TEXT NOT NULL,
    item       INTEGER NOT NULL,
    PRIMARY KEY (model_key, kind, item)
) WITHOUT ROWID;
CREATE TRIGGER chunks_embed AFTER INSERT ON chunks BEGIN
    INSERT OR IGNORE INTO embed_queue SELECT key, 'organized', new.id FROM vector_models
        WHERE state IN ('active', 'building');
END;
CREATE TRIGGER summaries_embed_ai AFTER INSERT ON summaries BEGIN
    INSERT OR IGNORE INTO embed_queue SELECT key, 'summary', new.id FROM vector_models
        WHERE state IN ('active', 'building');
END;
CREATE TRIGGER summaries_embed_au AFTER UPDATE OF index_line, summary ON summaries BEGIN
    INSERT OR IGNORE INTO embed_queue SELECT key, 'summary', new.id FROM vector_models
        WHERE state IN ('active', 'building');
END;
CREATE TRIGGER messages_embed_ai AFTER INSERT ON messages BEGIN
    INSERT OR IGNORE INTO embed_queue SELECT key, 'message', new.id FROM vector_models
        WHERE state IN ('active', 'building') AND new.role != 'tool';
END;
CREATE TRIGGER messages_embed_au AFTER UPDATE OF text, dropped ON messages BEGIN
    INSERT OR IGNORE INTO embed_queue SELECT key, 'message', new.id FROM vector_models
        WHERE state IN ('active', 'building');
END;
CREATE TRIGGER insights_embed_ai AFTER INSERT ON insights BEGIN
    INSERT OR IGNORE INTO embed_queue SELECT key, 'insight', new.id FROM vector_models
        WHERE state IN ('active', 'building');
END;
CREATE TRIGGER insights_embed_au AFTER UPDATE OF statement, condition, status ON insights BEGIN
    INSERT OR IGNORE INTO embed_queue SELECT key, 'insight', new.id FROM vector_models
        WHERE state IN ('active', 'building');
END;
"""

SCHEMA_V4 = """
-- Candidate insights: where each came from and how it is recalled.
ALTER TABLE insights ADD COLUMN origin TEXT NOT NULL DEFAULT 'local';   -- local, model, save
ALTER TABLE insights ADD COLUMN use_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE insights ADD COLUMN forgotten_from TEXT;                    -- the status restore returns to
CREATE INDEX insights_by_category ON insights (category, status);
CREATE INDEX links_to ON links (to_id);

-- Per source: whether its increments have been looked for, and how far (sessions grow).
CREATE TABLE insight_jobs (
    source_id   INTEGER PRIMARY KEY REFERENCES sources (id),
    state       TEXT NOT NULL CHECK (state IN ('waiting', 'done', 'failed')),
    upto        INTEGER NOT NULL DEFAULT 0,    -- characters of raw_text already examined
    attempts    INTEGER NOT NULL DEFAULT 0,
    path        TEXT,                          -- local or model: which extraction ran last
    last_error  TEXT,
    next_try_at TEXT,
    updated_at  TEXT NOT NULL
);
CREATE INDEX insight_jobs_waiting ON insight_jobs (state, next_try_at) WHERE state != 'done';

-- Every call to an external model: append-only, like the audit log.
CREATE TABLE receipts (
    id            INTEGER PRIMARY KEY,
    at            TEXT NOT NULL,
    purpose       TEXT NOT NULL,       -- insights, summary, embedding, ...
    endpoint      TEXT NOT NULL,
    model         TEXT NOT NULL,
    project       TEXT NOT NULL,
    source_id     INTEGER,
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    duration_ms   INTEGER NOT NULL DEFAULT 0,
    outcome       TEXT NOT NULL,       -- ok, rejected: <why>, error: <why>
    detail        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX receipts_by_at ON receipts (at);
CREATE TRIGGER receipts_no_update BEFORE UPDATE ON receipts BEGIN
    SELECT RAISE(ABORT, 'receipts are append-only');
END;
CREATE TRIGGER receipts_no_delete BEFORE DELETE ON receipts BEGIN
    SELECT RAISE(ABORT, 'receipts are append-only');
END;

-- MCP tool calls, so status can show which agents use memory.
CREATE TABLE tool_calls (
    id          INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    tool        TEXT NOT NULL,
    project     TEXT,
    client      TEXT,               -- the MCP client's name, when it gives one
    transport   TEXT NOT NULL,      -- stdio or http
    duration_ms INTEGER NOT NULL DEFAULT 0,
    outcome     TEXT NOT NULL       -- ok or error: <why>
);
CREATE INDEX tool_calls_by_at ON tool_calls (at);

-- Files that hold a managed context block.
CREATE TABLE context_targets (
    path            TEXT PRIMARY KEY,
    kind            TEXT NOT NULL,           -- global or project
    agent           TEXT,                    -- claude, codex, gemini (global targets)
    project         TEXT,                    -- project targets
    mode            TEXT NOT NULL DEFAULT 'inline' CHECK (mode IN ('inline', 'import')),
    enabled         INTEGER NOT NULL DEFAULT 1,
    created_file    INTEGER NOT NULL DEFAULT 0,   -- incremind created it (and may exclude it from git)
    digest          TEXT,                    -- of the block last written
    tokens          INTEGER,
    last_written_at TEXT,
    problem         TEXT
);
"""

# SQLite cannot change a CHECK constraint in place, so the insights table is rebuilt (the
# documented twelve-step way: new table, copy, drop, rename, then its indexes and triggers).
SCHEMA_V5 = """
-- Decisions as a category, 'supersedes' as a relation, and each insight's scope.
CREATE TABLE insights_v5 (
    id             INTEGER PRIMARY KEY,
    project        TEXT NOT NULL,
    category       TEXT NOT NULL CHECK (category IN
                   ('identity', 'preference', 'correction', 'decision', 'entity', 'event', 'method')),
    statement      TEXT NOT NULL,
    condition      TEXT NOT NULL DEFAULT '',
    relation       TEXT NOT NULL DEFAULT 'new' CHECK (relation IN ('new', 'supplement', 'supersedes', 'different')),
    status         TEXT NOT NULL DEFAULT 'pending' CHECK (status IN
                   ('pending', 'confirmed', 'rejected', 'forgotten', 'superseded')),
    confidence     REAL NOT NULL DEFAULT 0.5,
    hotness        REAL NOT NULL DEFAULT 1.0,
    revision       INTEGER NOT NULL DEFAULT 1,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    last_used_at   TEXT,
    origin         TEXT NOT NULL DEFAULT 'local',
    use_count      INTEGER NOT NULL DEFAULT 0,
    forgotten_from TEXT,
    scope          TEXT NOT NULL DEFAULT 'project' CHECK (scope IN ('global', 'project'))
);
-- before scopes, the lasting categories were shared by every project: they keep doing so
INSERT INTO insights_v5 (id, project, category, statement, condition, relation, status, confidence, hotness,
                         revision, created_at, updated_at, last_used_at, origin, use_count, forgotten_from, scope)
    SELECT id, project, category, statement, condition, relation, status, confidence, hotness, revision,
           created_at, updated_at, last_used_at, origin, use_count, forgotten_from,
           CASE WHEN category IN ('identity', 'preference', 'correction') THEN 'global' ELSE 'project' END
    FROM insights;
DROP TABLE insights;
ALTER TABLE insights_v5 RENAME TO insights;
CREATE INDEX insights_by_status ON insights (project, status);
CREATE INDEX insights_by_category ON insights (category, status);
CREATE INDEX insights_by_scope ON insights (scope, status);
CREATE TRIGGER insights_ai AFTER INSERT ON insights BEGIN
    INSERT INTO insights_fts (rowid, statement, condition) VALUES (new.id, new.statement, new.condition);
END;
CREATE TRIGGER insights_au AFTER UPDATE OF statement, condition ON insights BEGIN
    INSERT INTO insights_fts (insights_fts, rowid, statement, condition)
        VALUES ('delete', old.id, old.statement, old.condition);
    INSERT INTO insights_fts (rowid, statement, condition) VALUES (new.id, new.statement, new.condition);
END;
CREATE TRIGGER insights_embed_ai AFTER INSERT ON insights BEGIN
    INSERT OR IGNORE INTO embed_queue SELECT key, 'insight', new.id FROM vector_models
        WHERE state IN ('active', 'building');
END;
CREATE TRIGGER insights_embed_au AFTER UPDATE OF statement, condition, status ON insights BEGIN
    INSERT OR IGNORE INTO embed_queue SELECT key, 'insight', new.id FROM vector_models
        WHERE state IN ('active', 'building');
END;
"""

# v6: when anything was last taken in, which `status` shows, without reading every source's text
SCHEMA_V6 = """
CREATE INDEX sources_by_last_seen ON sources (last_seen_at);
"""

# v7: a session's state snapshot as structured parts, so readers no longer split the rendered summary
SCHEMA_V7 = """
ALTER TABLE sessions ADD COLUMN snapshot TEXT;   -- JSON {goal, done, decisions, next, files}; NULL until summarized
"""

# v8: the embedding queue's triggers skip what is queued already instead of relying on OR IGNORE. An
# outer statement's conflict policy overrides a trigger's: a summary renewed by UPSERT (ON CONFLICT DO
# UPDATE, policy ABORT) while its embedding was still queued failed on the queue's primary key.
SCHEMA_V8 = """
DROP TRIGGER chunks_embed;
CREATE TRIGGER chunks_embed AFTER INSERT ON chunks BEGIN
    INSERT INTO embed_queue SELECT key, 'organized', new.id FROM vector_models v
        WHERE v.state IN ('active', 'building') AND NOT EXISTS (
            SELECT 1 FROM embed_queue q WHERE q.model_key = v.key AND q.kind = 'organized' AND q.item = new.id);
END;
DROP TRIGGER summaries_embed_ai;
CREATE TRIGGER summaries_embed_ai AFTER INSERT ON summaries BEGIN
    INSERT INTO embed_queue SELECT key, 'summary', new.id FROM vector_models v
        WHERE v.state IN ('active', 'building') AND NOT EXISTS (
            SELECT 1 FROM embed_queue q WHERE q.model_key = v.key AND q.kind = 'summary' AND q.item = new.id);
END;
DROP TRIGGER summaries_embed_au;
CREATE TRIGGER summaries_embed_au AFTER UPDATE OF index_line, summary ON summaries BEGIN
    INSERT INTO embed_queue SELECT key, 'summary', new.id FROM vector_models v
        WHERE v.state IN ('active', 'building') AND NOT EXISTS (
            SELECT 1 FROM embed_queue q WHERE q.model_key = v.key AND q.kind = 'summary' AND q.item = new.id);
END;
DROP TRIGGER messages_embed_ai;
CREATE TRIGGER messages_embed_ai AFTER INSERT ON messages BEGIN
    INSERT INTO embed_queue SELECT key, 'message', new.id FROM vector_models v
        WHERE v.state IN ('active', 'building') AND new.role != 'tool' AND NOT EXISTS (
            SELECT 1 FROM embed_queue q WHERE q.model_key = v.key AND q.kind = 'message' AND q.item = new.id);
END;
DROP TRIGGER messages_embed_au;
CREATE TRIGGER messages_embed_au AFTER UPDATE OF text, dropped ON messages BEGIN
    INSERT INTO embed_queue SELECT key, 'message', new.id FROM vector_models v
        WHERE v.state IN ('active', 'building') AND NOT EXISTS (
            SELECT 1 FROM embed_queue q WHERE q.model_key = v.key AND q.kind = 'message' AND q.item = new.id);
END;
DROP TRIGGER insights_embed_ai;
CREATE TRIGGER insights_embed_ai AFTER INSERT ON insights BEGIN
    INSERT INTO embed_queue SELECT key, 'insight', new.id FROM vector_models v
        WHERE v.state IN ('active', 'building') AND NOT EXISTS (
            SELECT 1 FROM embed_queue q WHERE q.model_key = v.key AND q.kind = 'insight' AND q.item = new.id);
END;
DROP TRIGGER insights_embed_au;
CREATE TRIGGER insights_embed_au AFTER UPDATE OF statement, condition, status ON insights BEGIN
    INSERT INTO embed_queue SELECT key, 'insight', new.id FROM vector_models v
        WHERE v.state IN ('active', 'building') AND NOT EXISTS (
            SELECT 1 FROM embed_queue q WHERE q.model_key = v.key AND q.kind = 'insight' AND q.item = new.id);
END;
"""

# v9: how far each transcript has been read, besides where the next read starts (status's "behind")
SCHEMA_V9 = """
ALTER TABLE tail_files ADD COLUMN read_to INTEGER NOT NULL DEFAULT 0;
UPDATE tail_files SET read_to = offset;
"""

# v10: the day a file's material is from, when its name or first line says so (search's dates)
SCHEMA_V10 = """
ALTER TABLE sources ADD COLUMN dated TEXT;   -- ISO 8601 date; NULL: the day it was taken in (created_at)
"""

# v11: a source's passages by offset: a growing session finds the passage its new turns join, and renews
# its passages from there, without reading every passage of a long session
SCHEMA_V11 = """
CREATE INDEX chunks_by_start ON chunks (source_id, start);
"""

# v12: a session's messages are no longer embedded: a search with no tier reads them in their passages,
# and their vectors were half of a chatty memory's, made for --tier raw alone (keyword search serves it)
SCHEMA_V12 = """
DROP TRIGGER messages_embed_ai;
DROP TRIGGER messages_embed_au;
DELETE FROM embed_queue WHERE kind = 'message';
"""

MIGRATIONS: tuple[str, ...] = (
    SCHEMA_V1,
    SCHEMA_V2,
    SCHEMA_V3,
    SCHEMA_V4,
    SCHEMA_V5,
    SCHEMA_V6,
    SCHEMA_V7,
    SCHEMA_V8,
    SCHEMA_V9,
    SCHEMA_V10,
    SCHEMA_V11,
    SCHEMA_V12,
)


def _fill_session_snapshots(conn: apsw.Connection) -> None:
    """Give every session summarized before v7 the parts its rendered summary shows.

    Read from the text once, as the context blocks read it until now: an
    upgraded store's blocks show the same state from its first start, with no
    pass of the pipeline's summarizer (which the store cannot call) over every
    session. The next change to a session summarizes it anew, into parts.
    """
    rows = list(
        conn.execute(
            """SELECT ss.source_id, su.summary FROM sessions ss JOIN summaries su ON su.source_id = ss.source_id
               WHERE ss.snapshot IS NULL"""
        )
    )
    conn.executemany(
        "UPDATE sessions SET snapshot = ? WHERE source_id = ?",
        [(snapshot_json(parse_rendered_snapshot(str(summary))), source_id) for source_id, summary in rows],
    )


# data steps run after a version's SQL, in its transaction
_FILLS: dict[int, Callable[[apsw.Connection], None]] = {7: _fill_session_snapshots}


def migrate(conn: apsw.Connection) -> None:
    """Bring the schema up to date, one committed step per version."""
    current = stored_version(conn)
    if current >= len(MIGRATIONS):
        return
    # a table rebuild drops a table that others reference; foreign keys are checked after the step
    # instead (the pragma cannot change inside a transaction)
    enforced = bool(conn.pragma("foreign_keys"))
    conn.pragma("foreign_keys", "OFF")
    try:
        for version, sql in enumerate(MIGRATIONS[current:], start=current + 1):
            with conn:  # the schema change and its version bump commit together
                conn.execute(sql)
                if fill := _FILLS.get(version):
                    fill(conn)
                broken = list(conn.execute("PRAGMA foreign_key_check"))
                if broken:
                    raise apsw.ConstraintError(f"schema step {version} left {len(broken)} broken references")
                conn.pragma("user_version", version)
    finally:
        conn.pragma("foreign_keys", "ON" if enforced else "OFF")


def stored_version(conn: apsw.Connection) -> int:
    """Return the schema version the database was last migrated to (0: never)."""
    return int(conn.pragma("user_version"))


def schema_version() -> int:
    """Return the version this code migrates to."""
    return len(MIGRATIONS)
