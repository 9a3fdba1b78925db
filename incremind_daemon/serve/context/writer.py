"""Keep every target's block and the hook's precompiled files current, debounced.

The daemon owns one ContextWriter and one thread that loops::

    while writer.wait_due():
        writer.regenerate_due(conn)

Anything that changes what a block shows calls ``mark_dirty(project)`` (any
thread). A pass runs ``SETTLE_SECONDS`` after the first mark, so a burst of
changes is written once, and never sooner than ``min_interval_seconds`` after
the previous pass, so no file is rewritten more often than that; with the
defaults a change shows within about 10 seconds. Every ``REFRESH_SECONDS`` a
pass runs anyway, since insights cool with time alone. Files whose block
content is unchanged are not rewritten.

An agent starting in a project reads two parts: the block of its global file
(the person's global rules, at most ``GLOBAL_SHARE`` of
``context.budget_tokens``) and the project's part (the project's own rules,
decisions and sessions), from its SessionStart hook or a repository file the
person enabled, within what the global block leaves of the budget. Global
rules are never repeated in the project's part, and an agent whose hook does
not run still has them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import apsw

from incremind_daemon.config import Settings, private_projects
from incremind_daemon.serve.context import targets as t
from incremind_daemon.serve.context.blockfile import BlockWrite, write_block, write_owned_file
from incremind_daemon.serve.context.gather import Scrub, gather_context
from incremind_daemon.serve.context.render import HEAD_LINES, ContextData, RenderedBlock, render_context_block
from incremind_daemon.store import clock as wall_clock
from incremind_daemon.store import recall
from incremind_daemon.store.db import connect, write_transaction

log = logging.getLogger(__name__)

SETTLE_SECONDS = 1.0
REFRESH_SECONDS = 900.0
GLOBAL_SHARE = 0.4  # of context.budget_tokens: the global block; the project's part gets the rest
MIN_PART_TOKENS = 200
HOOK_PROJECTS = 200  # the most recently active projects get a precompiled hook block, however long ago
HOOK_MAX_CHARS = 9_000  # Claude Code moves additionalContext over 10,000 characters into a file
HOOK_AGENTS = ("claude", "codex", "gemini")
_SHRINK_STEPS = 8
HookPayload = dict[str, object]  # one precompiled hook file, as JSON: hook.py reads it with the standard library


@dataclass(frozen=True, slots=True)
class TargetResult:
    """The outcome of one pass over one target."""

    path: str
    kind: str
    agent: str | None
    project: str | None
    mode: str
    written: bool
    tokens: int
    budget: int
    problem: str | None = None


@dataclass(frozen=True, slots=True)
class TargetStatus:
    """One target as ``incremind status`` lists it."""

    path: str
    kind: str
    mode: str
    enabled: bool
    last_written_at: str | None
    tokens: int | None
    problem: str | None


@dataclass(slots=True)
class _PassCache:
    """What one pass reads once and shares between its blocks."""

    pool: list[recall.RecalledInsight]
    scrubbed: dict[int, recall.RecalledInsight] = field(default_factory=dict)
    blocks: dict[tuple[str | None, str | None, bool], ContextData] = field(default_factory=dict)
    global_tokens: int | None = None


class ContextWriter:
    """Render and write context blocks; safe to mark dirty from any thread."""

    def __init__(
        self,
        settings: Settings,
        *,
        scrub: Scrub,
        clock: Callable[[], float] = time.monotonic,
        write: Callable[[Callable[[apsw.Connection], None]], None] | None = None,
    ) -> None:
        """``write`` runs a change of the bookkeeping rows on the process's one writer and waits for it.

        Without one, the writer's own connection writes them.
        """
        self.settings = settings
        self._scrub = scrub
        self._write_rows = write
        self._clock = clock
        self._cond = threading.Condition()
        self._dirty: set[str | None] = {None}  # the first pass covers everything
        self._dirty_since: float | None = clock()
        self._last_pass = float("-inf")
        self._closed = False

    def mark_dirty(self, project: str | None = None) -> None:
        """Note that what blocks of this project (None: every block) show may have changed."""
        with self._cond:
            self._dirty.add(project)
            if self._dirty_since is None:
                self._dirty_since = self._clock()
            self._cond.notify_all()

    def due_in(self) -> float:
        """Return seconds until the next pass is due (0: now)."""
        with self._cond:
            return self._due_in_locked()

    def _due_in_locked(self) -> float:
        now = self._clock()
        interval = self.settings.context.min_interval_seconds
        refresh = self._last_pass + REFRESH_SECONDS - now
        if self._dirty_since is None:
            return max(0.0, refresh)
        wait = max(self._dirty_since + SETTLE_SECONDS, self._last_pass + interval) - now
        return max(0.0, min(wait, refresh))

    def wait_due(self, timeout: float | None = None) -> bool:
        """Block until a pass is due (True), or until ``close()`` or the timeout (False)."""
        deadline = None if timeout is None else self._clock() + timeout
        with self._cond:
            while not self._closed:
                wait = self._due_in_locked()
                if wait <= 0:
                    return True
                if deadline is not None:
                    left = deadline - self._clock()
                    if left <= 0:
                        return False
                    wait = min(wait, left)
                self._cond.wait(wait)
            return False

    def close(self) -> None:
        """Wake and stop a thread waiting in ``wait_due``."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def regenerate_due(self, conn: apsw.Connection, now: datetime | None = None) -> list[TargetResult]:
        """Run a pass over the targets the pending changes affect (all after a refresh)."""
        with self._cond:
            dirty: set[str | None] = set(self._dirty) if self._dirty_since is not None else {None}
            self._dirty.clear()
            self._dirty_since = None
            self._last_pass = self._clock()
        try:
            return self._pass(conn, now or wall_clock.now(), dirty)
        except BaseException:
            self.mark_dirty(None)  # try everything again next time
            raise

    def regenerate(self, conn: apsw.Connection, now: datetime | None = None) -> list[TargetResult]:
        """Render and write every target and the hook files now; return one result per target."""
        with self._cond:
            self._dirty.clear()
            self._dirty_since = None
            self._last_pass = self._clock()
        return self._pass(conn, now or wall_clock.now(), {None})

    def _pass(self, conn: apsw.Connection, now: datetime, dirty: set[str | None]) -> list[TargetResult]:
        if not self.settings.context.enabled:
            return []
        local = now.astimezone()  # blocks show the person's own clock
        private = private_projects(self.settings)
        rows = {row.path: row for row in recall.context_targets(conn)}
        wanted = t.global_targets(self.settings, rows) + t.project_targets(rows)
        # lasting insights reach every block, so only a change confined to private projects is narrower
        only = None if None in dirty or any(p not in private for p in dirty) else dirty
        if only is not None:
            wanted = [x for x in wanted if x.project in only]
        cache = self._pass_cache(conn, local)
        results = [
            self._write_target(
                conn, x, self._data(conn, cache, x, private, local), self._budget(conn, cache, x, private, local), rows
            )
            for x in wanted
        ]
        self._write_hook_files(conn, cache, rows, private, local, only)
        return results

    def _data(
        self, conn: apsw.Connection, cache: _PassCache, target: t.Target, private: frozenset[str], now: datetime
    ) -> ContextData:
        agent = target.agent if target.kind in ("global", "hook") else None
        shared = target.project is None or target.kind == "full"
        key = (target.project, agent, shared)
        if key in cache.blocks:
            return cache.blocks[key]
        data = gather_context(
            conn,
            project=target.project,
            agent=agent,
            private=private,
            now=now,
            insights=self.settings.insights,
            scrub=self._scrub,
            pool=cache.pool,
            scrubbed=cache.scrubbed,
            limit=max(40, self.settings.context.budget_tokens // 8),  # more lines than the budget can hold
            shared=shared,
        )
        cache.blocks[key] = data
        return data

    @property
    def global_budget(self) -> int:
        """Return the tokens a global block may hold."""
        return max(MIN_PART_TOKENS, int(self.settings.context.budget_tokens * GLOBAL_SHARE))

    def _budget(
        self, conn: apsw.Connection, cache: _PassCache, target: t.Target, private: frozenset[str], now: datetime
    ) -> int:
        """Return a target's budget: the global share, or what the global block leaves of the whole."""
        total = self.settings.context.budget_tokens
        if target.project is None:
            return self.global_budget
        if target.kind == "full":
            return total
        used = cache.global_tokens
        if used is None:
            # each agent's global block has its own time anchor ("the last gemini session…"), so one may hold a
            # line another cannot; a project's part, shared by every agent, leaves room for the largest of them
            used = max(
                render_context_block(
                    self._data(conn, cache, t.Target(Path("global"), "global", agent, None, "inline"), private, now),
                    self.global_budget,
                ).tokens
                for agent in (None, *HOOK_AGENTS)
            )
            cache.global_tokens = used
        return max(MIN_PART_TOKENS, total - used)

    def _pass_cache(self, conn: apsw.Connection, now: datetime) -> _PassCache:
        """Read what every block of one pass shares: the recallable insights, once."""
        insights = self.settings.insights
        pool = recall.recallable_insights(
            conn, now=now, half_life_days=insights.half_life_days, cold_below=insights.cold_below
        )
        return _PassCache(pool)

    def render_for(self, conn: apsw.Connection, target: t.Target, now: datetime | None = None) -> RenderedBlock:
        """Render the block a target would get now, shrunk to fit the agent's limits."""
        local = (now or wall_clock.now()).astimezone()
        private = private_projects(self.settings)
        cache = self._pass_cache(conn, local)  # the target's block and each agent's global block read one pool
        data = self._data(conn, cache, target, private, local)
        return self._fitted(target, data, self._budget(conn, cache, target, private, local))[0]

    def _fitted(self, target: t.Target, data: ContextData, budget: int) -> tuple[RenderedBlock, str | None]:
        if target.is_codex and target.mode == "inline":
            room = t.codex_room(target, self.settings.context.codex_limit_bytes)
            return shrink_to(data, budget, lambda block: len(block.text.encode("utf-8")) + block.text.count("\n"), room)
        return render_context_block(data, budget), None

    def _write_target(
        self,
        conn: apsw.Connection,
        target: t.Target,
        data: ContextData,
        budget: int,
        rows: dict[str, recall.ContextTargetRow],
    ) -> TargetResult:
        block, problem = self._fitted(target, data, budget)
        outcome = BlockWrite(target.path, False, problem=problem) if problem else self._write(target, block)
        digest = hashlib.sha256(block.body.encode("utf-8")).hexdigest()[:16]
        written_at = data.now.isoformat(timespec="seconds") if outcome.changed else None
        previous = rows.get(str(target.path))
        record = recall.ContextTargetRow(
            str(target.path), target.kind, target.agent, target.project, target.mode, True, outcome.created
        )
        unchanged = (
            previous is not None
            and not outcome.changed
            and (previous.kind, previous.agent, previous.project, previous.mode, previous.enabled)
            == (record.kind, record.agent, record.project, record.mode, record.enabled)
            and previous.problem == outcome.problem
            and previous.tokens is not None
        )
        if not unchanged:

            def bookkeep(conn: apsw.Connection) -> None:
                with write_transaction(conn):
                    recall.save_context_target(conn, record)
                    recall.record_context_write(
                        conn,
                        str(target.path),
                        digest=digest,
                        tokens=block.tokens,
                        written_at=written_at,
                        problem=outcome.problem,
                        created_file=outcome.created,
                    )

            if self._write_rows is not None:
                self._write_rows(bookkeep)
            else:
                bookkeep(conn)
        if outcome.problem:
            log.warning("context target %s: %s", target.path, outcome.problem)
        elif outcome.changed:
            log.info("wrote the context block of %s (%d tokens)", target.path, block.tokens)
        return TargetResult(
            str(target.path),
            target.kind,
            target.agent,
            target.project,
            target.mode,
            outcome.changed,
            block.tokens,
            block.budget,
            outcome.problem,
        )

    def _write(self, target: t.Target, block: RenderedBlock) -> BlockWrite:
        if target.mode != "import":
            return write_block(target.path, block.text, head_lines=HEAD_LINES)
        owned = t.import_file(self.settings, target)
        try:
            changed = write_owned_file(owned, block.text, head_lines=HEAD_LINES)
        except OSError as exc:
            return BlockWrite(target.path, False, problem=f"cannot write {owned}: {exc.strerror or exc}")
        line = write_block(target.path, t.import_line(owned))
        return BlockWrite(target.path, changed or line.changed, line.created, line.problem)

    def hook_payload(self, conn: apsw.Connection, project: str | None, now: datetime | None = None) -> HookPayload:
        """Return what the hook file of a project (None: the global one) holds now."""
        local = (now or wall_clock.now()).astimezone()
        return self._hook_payload(conn, self._pass_cache(conn, local), project, private_projects(self.settings), local)

    def _hook_payload(
        self,
        conn: apsw.Connection,
        cache: _PassCache,
        project: str | None,
        private: frozenset[str],
        now: datetime,
    ) -> HookPayload:
        target = t.Target(Path("hook"), "hook", "claude" if project is None else None, project, "inline")
        data = self._data(conn, cache, target, private, now)
        budget = self._budget(conn, cache, target, private, now)
        block, _ = shrink_to(data, budget, lambda b: len(b.text), HOOK_MAX_CHARS)
        lasts = {
            agent: recall.last_session_at(conn, project=project, private=private, agent=agent) for agent in HOOK_AGENTS
        }
        return {
            "version": 1,
            "project": project,
            "body": block.body,
            "tokens": block.tokens,
            "last_sessions": {agent: {"at": v[0], "project": v[1]} if v else None for agent, v in lasts.items()},
        }

    def _write_hook_files(
        self,
        conn: apsw.Connection,
        cache: _PassCache,
        rows: dict[str, recall.ContextTargetRow],
        private: frozenset[str],
        now: datetime,
        only: set[str | None] | None,
    ) -> None:
        """Precompile the SessionStart hook's blocks: one per project with sessions, one global, and an index."""
        folder = self.settings.context_dir / "hook"
        enabled = {row.project: Path(row.path).parent for row in rows.values() if row.kind == "project" and row.project}
        projects = list(dict.fromkeys([*enabled, *recall.active_projects(conn, limit=HOOK_PROJECTS)]))
        files: dict[str, str] = {}
        for project in [None, *projects]:
            name = "global.json" if project is None else f"{t.file_slug(project)}.json"
            if project is not None:
                files[project] = name
            if only is not None and project not in only:
                continue
            payload = self._hook_payload(conn, cache, project, private, now)
            write_owned_file(folder / name, json.dumps(payload, ensure_ascii=False, sort_keys=True))
        prefixes = {str(Path(p).expanduser()): n for p, n in self.settings.sessions.projects.items()}
        prefixes.update({str(path): project for project, path in enabled.items() if project})
        # an agent whose global file holds the global block gets only the project's part from its hook
        in_file = {target.agent: True for target in t.global_targets(self.settings, rows) if target.agent}
        index = {
            "version": 1,
            "global": "global.json",
            "global_in_file": {agent: in_file.get(agent, False) for agent in HOOK_AGENTS},
            "projects": files,
            "prefixes": sorted(prefixes.items(), key=lambda item: -len(item[0])),
        }
        write_owned_file(folder / "index.json", json.dumps(index, ensure_ascii=False, sort_keys=True))
        keep = {"index.json", "global.json", *files.values()}
        for stale in folder.glob("*.json"):
            if stale.name not in keep:
                stale.unlink(missing_ok=True)

    def statuses(self, conn: apsw.Connection) -> list[TargetStatus]:
        """Return every target for status: path, mode, last written, tokens, problem."""
        return target_statuses(self.settings, conn)


def target_statuses(settings: Settings, conn: apsw.Connection) -> list[TargetStatus]:
    """Return every target, recorded or due, with its mode, last write, size in tokens and problem."""
    rows = {row.path: row for row in recall.context_targets(conn)}
    out = [
        TargetStatus(row.path, row.kind, row.mode, row.enabled, row.last_written_at, row.tokens, row.problem)
        for row in rows.values()
    ]
    for target in t.global_targets(settings, rows):
        if str(target.path) not in rows:
            out.append(TargetStatus(str(target.path), "global", target.mode, True, None, None, None))
    return sorted(out, key=lambda s: (s.kind, s.path))


def shrink_to(
    data: ContextData, budget: int, size: Callable[[RenderedBlock], int], room: int
) -> tuple[RenderedBlock, str | None]:
    """Render within the budget, then lower the budget until ``size(block) <= room``."""
    block = render_context_block(data, budget)
    for _ in range(_SHRINK_STEPS):
        used = size(block)
        if used <= room:
            return block, None
        budget = int(block.tokens * room / used * 0.95)
        if budget < 50 or room <= 0:
            break
        block = render_context_block(data, budget)
    if size(block) <= room:
        return block, None
    return block, f"no room for the block: the agent's size limit leaves {max(room, 0)} bytes; shorten the file"


def render_recent_context(settings: Settings, project: str | None, *, scrub: Scrub) -> str:
    """Return the block a project's preloaded context holds now (the global block without a project).

    The MCP tool ``get_recent_context`` answers with this, so an agent asking
    mid-session gets exactly what a new session would have started with.
    Reads on its own connection: the MCP server calls it from any thread.
    """
    if project is None:
        target = t.Target(Path("global"), "global", None, None, "inline")
    else:  # the global rules and the project's part together, as a new session there reads them
        target = t.Target(Path(project), "full", None, project, "inline")
    conn = connect(settings.database_path, readonly=True)
    try:
        return ContextWriter(settings, scrub=scrub).render_for(conn, target).text + "\n"
    finally:
        conn.close()
