"""Describe the retrieval set: counts per language, kind and topic, and query-passage word overlap.

Word overlap is measured the way keyword search sees it: each query word (incremind's query
tokenizer, stopwords dropped) is looked up with FTS5 in a one-row index of the relevant passage,
built with the real ``porter incremind`` tokenizer. A query with overlap 1.0 matches all-words.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence

import apsw

from incremind_daemon.store.tokenizer import query_words, register_tokenizer

Row = dict[str, object]
KINDS = ("lexical", "paraphrase", "cross")
LANGS = ("zh", "en")
LEXICAL_FLOOR = 0.5  # a lexical query should share at least this share of its words
PARAPHRASE_CEILING = 0.5  # a paraphrase should share at most this share


def word_overlaps(queries: Sequence[Row], text_of: dict[str, str]) -> dict[str, float]:
    """Return, per query id, the largest share of its words found in one of its relevant passages."""
    conn = apsw.Connection(":memory:")
    register_tokenizer(conn)
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter incremind')")
    rowids: dict[str, int] = {}
    for pid in sorted({str(pid) for q in queries for pid in _relevant(q)}):
        rowids[pid] = len(rowids) + 1
        conn.execute("INSERT INTO t (rowid, text) VALUES (?, ?)", (rowids[pid], text_of[pid]))
    overlaps: dict[str, float] = {}
    for query in queries:
        words = query_words(str(query["query"]))
        best = 0.0
        for pid in _relevant(query):
            found = sum(
                1
                for word in words
                if conn.execute(
                    "SELECT 1 FROM t WHERE t MATCH ? AND rowid = ?", ('"' + word.replace('"', '""') + '"', rowids[pid])
                ).fetchone()
            )
            best = max(best, found / len(words) if words else 0.0)
        overlaps[str(query["id"])] = best
    conn.close()
    return overlaps


def _relevant(query: Row) -> list[str]:
    relevant = query["relevant"]
    assert isinstance(relevant, list)
    return [str(pid) for pid in relevant]


def describe_set(passages: Sequence[Row], queries: Sequence[Row], sizes: dict[str, int]) -> str:
    """Return a plain-text report of the set's statistics."""
    text_of = {str(p["id"]): str(p["text"]) for p in passages}
    relevant_ids = {pid for q in queries for pid in _relevant(q)}
    lengths = sorted(len(text) for text in text_of.values())
    by_lang = Counter(str(p["lang"]) for p in passages)
    lines = [
        f"passages: {len(passages):,} (zh {by_lang['zh']:,}, en {by_lang['en']:,}, mixed {by_lang['mixed']:,}); "
        f"{len(relevant_ids)} relevant to some query, {len(passages) - len(relevant_ids):,} distractors",
        f"passage length in characters: min {lengths[0]}, median {statistics.median(lengths):.0f}, "
        f"mean {statistics.fmean(lengths):.0f}, max {lengths[-1]}",
        f"queries: {len(queries)}",
        "",
        f"{'':12}" + "".join(f"{kind:>12}" for kind in (*KINDS, "all")),
    ]
    for lang in (*LANGS, "all"):
        counts = [
            sum(1 for q in queries if lang in ("all", q["lang"]) and kind in ("all", q["kind"]))
            for kind in (*KINDS, "all")
        ]
        lines.append(f"{lang:12}" + "".join(f"{c:>7} {c / len(queries):4.0%}" for c in counts))
    per_query = Counter(len(_relevant(q)) for q in queries)
    lines += ["", "relevant passages per query: " + ", ".join(f"{k}: {v}" for k, v in sorted(per_query.items()))]

    overlaps = word_overlaps(queries, text_of)
    lines += ["", "word overlap with the relevant passage (share of query words the index finds in it):"]
    for kind in KINDS:
        for lang in LANGS:
            values = [overlaps[str(q["id"])] for q in queries if q["kind"] == kind and q["lang"] == lang]
            if values:
                full = sum(1 for v in values if v == 1.0)
                lines.append(
                    f"  {kind:10} {lang}: mean {statistics.fmean(values):.2f}, median {statistics.median(values):.2f}, "
                    f"all words {full}/{len(values)}, none {sum(1 for v in values if v == 0)}/{len(values)}"
                )
    odd = [
        q
        for q in queries
        if (q["kind"] == "lexical" and overlaps[str(q["id"])] < LEXICAL_FLOOR)
        or (q["kind"] == "paraphrase" and overlaps[str(q["id"])] > PARAPHRASE_CEILING)
    ]
    for query in odd:
        overlap = overlaps[str(query["id"])]
        lines.append(f"  check {query['id']} ({query['kind']}, overlap {overlap:.2f}): {query['query']}")

    topics = sorted({str(p["topic"]) for p in passages})
    lines += ["", f"{'topic':12}{'passages':>10}{'facts':>7}{'queries':>9}"]
    for topic in topics:
        facts = {tuple(_relevant(q)) for q in queries if q["topic"] == topic}
        lines.append(
            f"{topic:12}{sum(1 for p in passages if p['topic'] == topic):>10}{len(facts):>7}"
            f"{sum(1 for q in queries if q['topic'] == topic):>9}"
        )
    lines += ["", "files: " + ", ".join(f"{name} {size / 1e6:.2f} MB" for name, size in sizes.items())]
    return "\n".join(lines)
