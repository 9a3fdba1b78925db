"""Which path finds a source's candidates (the model or the local rules), and the model's turn.

The model is asked only when one is configured, the job is not pinned to the
local rules (backfills are, unless asked), the project may be sent to the
endpoint, and today's token budget allows it. A failed call keeps the source
waiting with its reason; after a few failures the local rules take it.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from functools import partial

import apsw

from incremind_daemon.config import Settings, is_private
from incremind_daemon.pipeline.chat import ChatClient, ChatModel, ModelError, ModelWithheld
from incremind_daemon.pipeline.insights import (
    Increment,
    examine_source,
    known_for_material,
    material_of,
    model_window,
)
from incremind_daemon.pipeline.model_extract import extract_with_model
from incremind_daemon.store import clock, insight_jobs, receipts
from incremind_daemon.store.db import write_transaction
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.insight_jobs import MAX_ATTEMPTS, InsightJob
from incremind_daemon.store.records import Candidate, item_id

log = logging.getLogger(__name__)

RETRY_SECONDS = 300.0  # the first retry after a failed model call; doubles per attempt


def make_chat_client(settings: Settings, conn: apsw.Connection) -> ChatClient | None:
    """Return a chat client writing receipts through ``conn``, or None when no model is configured."""
    if not settings.model.base_url or not settings.model.name:
        return None
    return ChatClient(
        settings, record=partial(receipts.record_receipt, conn), spent=partial(receipts.tokens_spent, conn)
    )


def examine_job(
    conn: apsw.Connection,
    settings: Settings,
    job: InsightJob,
    *,
    client: ChatModel | None,
    embedder: Embedder | None,
    actor: str,
) -> list[Increment] | None:
    """Examine one source by the model when it may be used, else by the local rules.

    Return None when the model failed and the job waits for a retry.
    """
    if client is None or job.path == "local" or job.attempts >= MAX_ATTEMPTS:
        return examine_source(conn, settings, job, embedder=embedder, actor=actor)
    try:
        candidates = _model_candidates(conn, settings, job, client)
    except ModelWithheld as exc:  # private project or budget spent: nothing was sent
        log.info("%s: local rules (%s)", item_id("raw", job.source_id), exc)
        return examine_source(conn, settings, job, embedder=embedder, actor=actor)
    except ModelError as exc:
        delay = RETRY_SECONDS * 2**job.attempts
        retry_at = (clock.now() + timedelta(seconds=delay)).isoformat(timespec="seconds")
        with write_transaction(conn):
            insight_jobs.fail_job(conn, job.source_id, error=f"model: {exc}", retry_at=retry_at, now=clock.stamp())
        log.warning("model step for %s failed, retrying at %s: %s", item_id("raw", job.source_id), retry_at, exc)
        return None
    return examine_source(conn, settings, job, candidates=candidates, origin="model", embedder=embedder, actor=actor)


def _model_candidates(conn: apsw.Connection, settings: Settings, job: InsightJob, client: ChatModel) -> list[Candidate]:
    material = material_of(conn, job)
    start, end = model_window(material)
    if end <= start:
        return []
    known = known_for_material(conn, settings, material)
    found = extract_with_model(
        client,
        text=material.text[start:end],
        known=known,
        project=job.project,
        source_id=job.source_id,
        private=is_private(settings, job.project),
        max_candidates=settings.insights.max_per_source,
    )
    if found.rejected:
        log.info("%s: %d model proposal(s) rejected", item_id("raw", job.source_id), len(found.rejected))
    return [
        Candidate(c.statement, c.category, c.condition, c.quote, c.start + start, c.end + start)
        for c in (m.candidate for m in found.candidates)
    ]
