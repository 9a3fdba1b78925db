"""Vectors in sqlite-vec, one table per embedding model, never mixing spaces.

Each model (name + dimension + manifest digest) gets its own vec0 table. A row
holds the sign bits of the vector (the searched column: a Hamming scan of
64 bytes per 512-d row keeps a 100,000-passage search within tens of
milliseconds on two cores), the full float32 vector as an auxiliary column
for exact cosine re-ranking of the candidates, the item's kind and project
as metadata filters, and a digest of the embedded text. A vector whose text
has since changed, or whose item is gone, rewound or forgotten, is dropped
at query time and queued again, so it never answers.

Triggers queue every new or changed text for every model that is active or
being built; the worker drains that queue in batches after the rows commit.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

import apsw
import numpy as np
import numpy.typing as npt

from incremind_daemon.store.bitindex import bump_version, index_for
from incremind_daemon.store.db import Row, fetch_int, fetch_row, fetch_rows
from incremind_daemon.store.records import UNLESS_ASKED

log = logging.getLogger(__name__)

KIND_CODES = {"organized": 1, "summary": 2, "message": 3, "insight": 4}
KIND_BY_CODE = {code: kind for kind, code in KIND_CODES.items()}
RERANK_FACTOR = 4  # sign-bit candidates per result wanted, before the exact cosine re-rank (benchmarks/semantic.py)
MIN_CANDIDATES = 80

Vector = npt.NDArray[np.float32]

# SQL that yields (kind, item id, text, project) of every live item that can carry a vector
_ITEM_TEXTS = {
    "organized": """SELECT 'organized', c.id, c.text, s.project FROM chunks c JOIN sources s ON s.id = c.source_id""",
    "summary": """SELECT 'summary', m.id, m.index_line || char(10) || m.summary, s.project
                  FROM summaries m JOIN sources s ON s.id = m.source_id""",
    "message": """SELECT 'message', m.id, m.text, s.project FROM messages m JOIN sources s ON s.id = m.source_id
                  WHERE m.dropped = 0 AND m.role != 'tool'""",
    "insight": """SELECT 'insight', i.id, i.statement || char(10) || i.condition, i.project FROM insights i
                  WHERE i.status IN ('pending', 'confirmed')""",
}
# the kinds that get vectors: those a search with no tier looks through (records.UNLESS_ASKED); messages
# are searched in their passages, and the vectors they got before schema v12 stay
EMBEDDED_KINDS = tuple(kind for kind in KIND_CODES if kind not in UNLESS_ASKED)
_ITEM_BY_ID = {
    kind: sql + (" AND " if "WHERE" in sql else " WHERE ") + f"{alias}.id = ?"
    for kind, sql, alias in (
        ("organized", _ITEM_TEXTS["organized"], "c"),
        ("summary", _ITEM_TEXTS["summary"], "m"),
        ("message", _ITEM_TEXTS["message"], "m"),
        ("insight", _ITEM_TEXTS["insight"], "i"),
    )
}
_ITEMS_BY_IDS = {
    kind: sql.removesuffix("= ?") + "IN (SELECT value FROM json_each(?))" for kind, sql in _ITEM_BY_ID.items()
}


@dataclass(frozen=True, slots=True)
class VectorModel:
    """A model that has (or is building) a vector table."""

    key: str
    name: str
    dimension: int
    state: str  # active | building | retired


@dataclass(frozen=True, slots=True)
class VectorHit:
    kind: str
    item: int
    similarity: float


@dataclass(frozen=True, slots=True)
class Coverage:
    model: str
    dimension: int
    state: str
    embedded: dict[str, int]
    total: dict[str, int]


def text_digest(text: str) -> str:
    """Return the digest stored beside a vector to tell whether its text changed."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def vector_rowid(kind: str, item: int) -> int:
    """Return the vec0 rowid of an item's vector: the item id with its kind in the low three bits."""
    return item * 8 + KIND_CODES[kind]


def kind_of_rowid(rowid: int) -> str:
    """Return the item kind a vec0 rowid encodes ("" for an unknown code)."""
    return KIND_BY_CODE.get(rowid % 8, "")


def item_of_rowid(rowid: int) -> int:
    """Return the item id a vec0 rowid encodes."""
    return rowid // 8


def table_name(key: str) -> str:
    """Return the vec0 table of a model key (keys are [a-z0-9_-])."""
    return "vec_" + re.sub(r"[^a-z0-9_]", "_", key.lower())


def register_model(conn: apsw.Connection, key: str, name: str, dimension: int, *, now: str) -> VectorModel:
    """Make sure a model has its table; a new model starts 'building' (or 'active' if none is)."""
    row = fetch_row(conn, "SELECT key, name, dimension, state FROM vector_models WHERE key = ?", (key,))
    if row is not None:
        if row[3] == "retired":
            conn.execute("UPDATE vector_models SET state = 'building' WHERE key = ?", (key,))
            queue_all(conn, key)
            return VectorModel(key, name, dimension, "building")
        return VectorModel(*row)
    has_active = fetch_int(conn, "SELECT count(*) FROM vector_models WHERE state = 'active'") > 0
    state = "building" if has_active else "active"
    conn.execute(
        f"""CREATE VIRTUAL TABLE IF NOT EXISTS {table_name(key)} USING vec0(
                embedding bit[{dimension}], kind text, project text, +digest text, +vector blob)"""
    )
    conn.execute(
        "INSERT INTO vector_models (key, name, dimension, state, created_at) VALUES (?, ?, ?, ?, ?)",
        (key, name, dimension, state, now),
    )
    queue_all(conn, key)
    return VectorModel(key, name, dimension, state)


def queue_all(conn: apsw.Connection, key: str) -> None:
    """Queue every live item of the embedded kinds for embedding by a model."""
    for kind in EMBEDDED_KINDS:
        sql = _ITEM_TEXTS[kind]
        conn.execute(
            f"INSERT OR IGNORE INTO embed_queue (model_key, kind, item) SELECT ?, kind, id FROM ({_ids(kind, sql)})",
            (key,),
        )


def _ids(kind: str, sql: str) -> str:
    _, _, rest = sql.partition(" FROM ")
    alias = {"organized": "c", "summary": "m", "message": "m", "insight": "i"}[kind]
    return f"SELECT '{kind}' AS kind, {alias}.id AS id FROM {rest}"


def models(conn: apsw.Connection) -> list[VectorModel]:
    """Return the models that have vector tables, active first."""
    rows = fetch_rows(
        conn,
        """SELECT key, name, dimension, state FROM vector_models WHERE state != 'retired'
           ORDER BY state = 'active' DESC, created_at""",
    )
    return [VectorModel(*row) for row in rows]


def active_model(conn: apsw.Connection) -> VectorModel | None:
    """Return the model whose vectors answer searches now."""
    row = fetch_row(conn, "SELECT key, name, dimension, state FROM vector_models WHERE state = 'active'")
    return None if row is None else VectorModel(*row)


def live_model(conn: apsw.Connection, key: str) -> VectorModel | None:
    """Return a model by key when it is active or still building its vectors, else None."""
    row = fetch_row(
        conn, "SELECT key, name, dimension, state FROM vector_models WHERE key = ? AND state != 'retired'", (key,)
    )
    return None if row is None else VectorModel(*row)


def pending(
    conn: apsw.Connection, key: str, *, limit: int, kinds: Sequence[str] | None = None
) -> list[tuple[str, int, str, str]]:
    """Return up to limit queued (kind, item, text, project) for a model, of ``kinds`` only when given;
    gone items leave the queue."""
    if kinds is None:
        rows = fetch_rows(conn, "SELECT kind, item FROM embed_queue WHERE model_key = ? LIMIT ?", (key, limit))
    else:
        rows = fetch_rows(
            conn,
            "SELECT kind, item FROM embed_queue WHERE model_key = ? AND kind IN (SELECT value FROM json_each(?))"
            " LIMIT ?",
            (key, json.dumps(list(kinds)), limit),
        )
    found: list[tuple[str, int, str, str]] = []
    for kind, item in rows:
        row = fetch_row(conn, _ITEM_BY_ID[kind], (item,))
        if row is None:
            conn.execute("DELETE FROM embed_queue WHERE model_key = ? AND kind = ? AND item = ?", (key, kind, item))
            delete_vector(conn, key, kind, item)
        else:
            found.append((str(row[0]), int(row[1]), str(row[2]), str(row[3])))
    return found


def drop_from_queue(conn: apsw.Connection, key: str, entries: Sequence[tuple[str, int, str, str]]) -> None:
    """Take items off a model's queue without vectors (private text kept off a remote embedder)."""
    conn.executemany(
        "DELETE FROM embed_queue WHERE model_key = ? AND kind = ? AND item = ?",
        [(key, kind, item) for kind, item, _, _ in entries],
    )


def store_vectors(
    conn: apsw.Connection, key: str, entries: Sequence[tuple[str, int, str, str]], vectors: Vector
) -> None:
    """Store the vectors of queued items and take them off the queue.

    An item whose text changed while it was being embedded keeps its place in
    the queue and gets no vector now, so a stale vector is never stored.
    """
    table = table_name(key)
    for (kind, item, text, project), vector in zip(entries, vectors, strict=True):
        current = fetch_row(conn, _ITEM_BY_ID[kind], (item,))
        if current is None or str(current[2]) != text:
            continue
        rowid = vector_rowid(kind, item)
        conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))
        bits = np.packbits(vector > 0).tobytes()
        conn.execute(
            f"INSERT INTO {table} (rowid, embedding, kind, project, digest, vector) VALUES (?, vec_bit(?), ?, ?, ?, ?)",
            (rowid, bits, kind, project, text_digest(text), vector.astype(np.float32).tobytes()),
        )
        conn.execute("DELETE FROM embed_queue WHERE model_key = ? AND kind = ? AND item = ?", (key, kind, item))
    bump_version(conn, key)


def delete_vector(conn: apsw.Connection, key: str, kind: str, item: int) -> None:
    """Remove one item's vector from a model's table."""
    conn.execute(f"DELETE FROM {table_name(key)} WHERE rowid = ?", (vector_rowid(kind, item),))
    bump_version(conn, key)


def promote_if_built(conn: apsw.Connection, key: str) -> bool:
    """Make a building model active once its queue is empty, retiring the old one."""
    state = fetch_row(conn, "SELECT state FROM vector_models WHERE key = ?", (key,))
    if state is None or state[0] != "building":
        return False
    if fetch_int(conn, "SELECT count(*) FROM embed_queue WHERE model_key = ?", (key,)) > 0:
        return False
    for (old,) in fetch_rows(conn, "SELECT key FROM vector_models WHERE state = 'active'"):
        retire(conn, str(old))
    conn.execute("UPDATE vector_models SET state = 'active' WHERE key = ?", (key,))
    log.info("embedding model %s is now active", key)
    return True


def retire(conn: apsw.Connection, key: str) -> None:
    """Drop a model's vectors and queue; its row stays, marked retired."""
    conn.execute(f"DROP TABLE IF EXISTS {table_name(key)}")
    bump_version(conn, key)
    conn.execute("DELETE FROM embed_queue WHERE model_key = ?", (key,))
    conn.execute("UPDATE vector_models SET state = 'retired' WHERE key = ?", (key,))


def nearest(
    conn: apsw.Connection,
    key: str,
    query: Vector,
    *,
    limit: int,
    kinds: Sequence[str],
    project: str | None,
) -> list[VectorHit]:
    """Return the items nearest to a query vector, best first, live and unchanged ones only.

    The Hamming scan over sign bits picks RERANK_FACTOR candidates per result
    wanted; their float32 vectors are then ranked by exact cosine. The scan's
    cost grows with the candidates it keeps (sqlite-vec selects its top k per
    chunk of rows), so this is kept small; benchmarks/semantic.py measures it.
    """
    table = table_name(key)
    wanted = max(limit * RERANK_FACTOR, MIN_CANDIDATES)
    bits = np.packbits(query > 0).tobytes()
    bit_index = index_for(conn, key, table=table, kind_codes=KIND_CODES)
    if bit_index is not None and bit_index.ready():  # a long-lived process scans its copy, then reads candidates
        codes = [KIND_CODES[kind] for kind in kinds if kind in KIND_CODES]
        rowids = bit_index.candidates(conn, bits, wanted=wanted, kind_codes=codes, project=project)
        rows = read_candidates(conn, table, rowids, dimension=len(query))
    else:
        kind_list = ", ".join(f"'{kind}'" for kind in kinds if kind in KIND_CODES)
        sql = (
            f"SELECT rowid, kind, digest, vector FROM {table} WHERE embedding MATCH vec_bit(?) AND k = ? "
            f"AND kind IN ({kind_list})" + (" AND project = ?" if project is not None else "")
        )
        params: tuple[object, ...] = (bits, wanted) + ((project,) if project is not None else ())
        rows = fetch_rows(conn, sql, params)
    if not rows:
        return []
    matrix = np.frombuffer(b"".join(row[3] for row in rows), dtype=np.float32).reshape(len(rows), -1)
    scores = matrix @ query.astype(np.float32)
    order = [int(i) for i in np.argsort(-scores, kind="stable")]
    hits: list[VectorHit] = []
    for begin in range(0, len(order), limit):  # one look-up per kind for a window of candidates
        window = [
            (index, str(rows[index][1]), item_of_rowid(int(rows[index][0]))) for index in order[begin : begin + limit]
        ]
        live = _live_digests(conn, [(kind, item) for _, kind, item in window])
        for index, kind, item in window:
            if live.get((kind, item)) != rows[index][2]:
                continue  # changed or gone since it was embedded: never answer with a stale vector
            hits.append(VectorHit(kind, item, float(scores[index])))
            if len(hits) >= limit:
                return hits
    return hits


def similarities(
    conn: apsw.Connection, key: str, query: Vector, *, kind: str, items: Sequence[int]
) -> dict[int, float]:
    """Return the cosine of the query with each item's stored vector, for items embedded as they are now."""
    if not items:
        return {}
    rows = read_candidates(conn, table_name(key), [vector_rowid(kind, item) for item in items], dimension=len(query))
    live = _live_digests(conn, [(kind, item_of_rowid(int(row[0]))) for row in rows])
    out: dict[int, float] = {}
    for rowid, _, digest, vector in rows:
        item = item_of_rowid(int(rowid))
        if live.get((kind, item)) == digest:  # never a stale vector
            out[item] = float(np.frombuffer(vector, dtype=np.float32) @ query.astype(np.float32))
    return out


def read_candidates(conn: apsw.Connection, table: str, rowids: Sequence[int], *, dimension: int) -> list[Row]:
    """Read (rowid, kind, digest, vector) of candidate rows by rowid, in the order given.

    A vec0 point lookup costs about 50 microseconds, most of a search's
    re-rank; digest and vector are vec0 auxiliary columns, which sqlite-vec
    keeps in an ordinary rowid table, read here in one join. The shortcut is
    taken only when that table has the shape this module's CREATE gives it,
    and every row read is checked; anything else reads through vec0.
    """
    if not rowids:
        return []
    if _plain_auxiliary(conn, table):
        sql = f"""SELECT a.rowid, a.value00, a.value01 FROM json_each(?) j
                  CROSS JOIN "{table}_auxiliary" a ON a.rowid = j.value"""
        found = {int(r[0]): r for r in fetch_rows(conn, sql, (json.dumps(list(rowids)),))}
        if all(
            isinstance(r[2], bytes) and len(r[2]) == 4 * dimension and isinstance(r[1], str) for r in found.values()
        ):
            return [(r, kind_of_rowid(r), found[r][1], found[r][2]) for r in rowids if r in found]
        log.warning("the auxiliary table of %s is not as expected; reading through vec0", table)
        _AUXILIARY_SHAPE[(conn.db_filename("main"), table)] = False
    by_rowid = f"SELECT rowid, kind, digest, vector FROM {table} WHERE rowid = ?"
    return [row for rowid in rowids if (row := fetch_row(conn, by_rowid, (rowid,))) is not None]


_AUXILIARY_SHAPE: dict[tuple[str, str], bool] = {}


def _plain_auxiliary(conn: apsw.Connection, table: str) -> bool:
    """Tell whether a vec0 table keeps (digest, vector) as value00, value01 of a rowid table."""
    key = (conn.db_filename("main"), table)
    if key not in _AUXILIARY_SHAPE:
        declared = fetch_row(conn, "SELECT sql FROM sqlite_master WHERE name = ?", (table,))
        columns = [str(r[1]) for r in fetch_rows(conn, f'PRAGMA table_info("{table}_auxiliary")')]
        _AUXILIARY_SHAPE[key] = (
            declared is not None
            and str(declared[0]).replace(" ", "").endswith("+digesttext,+vectorblob)")
            and columns == ["rowid", "value00", "value01"]
        )
    return _AUXILIARY_SHAPE[key]


def _live_digests(conn: apsw.Connection, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], str]:
    """Return the text digest of each live item among keys, one query per kind."""
    found: dict[tuple[str, int], str] = {}
    for kind in dict.fromkeys(kind for kind, _ in keys):
        ids = json.dumps([item for k, item in keys if k == kind])
        for _, item, text, _ in fetch_rows(conn, _ITEMS_BY_IDS[kind], (ids,)):
            found[(kind, int(item))] = text_digest(str(text))
    return found


def coverage(conn: apsw.Connection) -> list[Coverage]:
    """Report embedded versus total items per kind for each model in use."""
    totals = {kind: fetch_int(conn, f"SELECT count(*) FROM ({_ITEM_TEXTS[kind]})") for kind in EMBEDDED_KINDS}
    out: list[Coverage] = []
    for model in models(conn):
        queued: dict[str, int] = {
            str(kind): int(count)
            for kind, count in fetch_rows(
                conn, "SELECT kind, count(*) FROM embed_queue WHERE model_key = ? GROUP BY kind", (model.key,)
            )
        }
        embedded = {kind: max(0, totals[kind] - int(queued.get(kind, 0))) for kind in totals}
        out.append(Coverage(model.name, model.dimension, model.state, embedded, totals))
    return out


def queue_depth(conn: apsw.Connection, key: str) -> int:
    """Return how many items wait for a model's vectors."""
    return fetch_int(conn, "SELECT count(*) FROM embed_queue WHERE model_key = ?", (key,))
