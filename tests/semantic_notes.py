"""Five short notes in both languages, for tests of search by meaning with real models."""

from __future__ import annotations

import apsw

from incremind_daemon.store import items
from incremind_daemon.store.records import NewPassage, NewSource

NOTES = [
    ("study", "间隔重复：按第 1、2、4、7、15 天复习单词，可以记得更牢。"),
    ("ops", "The database connection pool size was raised to 20 after the outage."),
    ("life", "我喜欢在周末去爬山，顺便拍一些风景照片。"),
    ("dev", "Use ruff to lint and format Python code before every commit."),
    ("ops", "Nginx 反向代理的超时时间改成了 60 秒，502 错误消失了。"),
]


def store_notes(conn: apsw.Connection) -> None:
    """Store each note as a source with one passage (the embed queue picks them up)."""
    with conn:
        for project, text in NOTES:
            source = items.insert_source(
                conn, NewSource(kind="note", project=project, title=text[:12], raw_text=text), now="2026-11-30"
            )
            items.insert_passages(conn, source, [NewPassage(text, 0, len(text))])
