"""Reviewing candidate insights: pending, confirm, reject, edit, forget, restore, insights, history, receipts."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from incremind_daemon.cli import runtime
from incremind_daemon.cli.base import Commands, command, project_arg
from incremind_daemon.config import Settings
from incremind_daemon.errors import IncremindError, NotFound
from incremind_daemon.store.records import CATEGORIES, INSIGHT_STATUSES, SCOPES, item_id, parse_row_number

if TYPE_CHECKING:
    import apsw

    from incremind_daemon.store import receipts


def register(commands: Commands, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    """Add this topic's subcommands."""
    pending = command(
        commands, common, "pending", cmd_pending, "list candidate insights waiting for review", "incremind pending"
    )
    pending.add_argument("--project", type=project_arg, help="only this project")
    pending.add_argument("--json", action="store_true", help="print machine-readable JSON")

    confirm = command(
        commands,
        common,
        "confirm",
        cmd_confirm,
        "confirm pending insights so search and context draw on them",
        "incremind confirm ins-3 ins-4   |   incremind confirm --all --project study",
    )
    confirm.add_argument("ids", nargs="*", metavar="ID", help="insight ids (ins-N)")
    confirm.add_argument("--all", action="store_true", help="confirm every pending insight")
    confirm.add_argument("--project", type=project_arg, help="with --all: only this project")
    confirm.add_argument("--json", action="store_true", help="print machine-readable JSON")

    for name, handler, text in (
        ("reject", cmd_reject, "reject pending insights (kept, never proposed again)"),
        ("forget", cmd_forget, "take insights out of recall and context (kept in the store)"),
        ("restore", cmd_restore, "bring forgotten insights back"),
    ):
        verb = command(commands, common, name, handler, text, f"incremind {name} ins-3")
        verb.add_argument("ids", nargs="+", metavar="ID", help="insight ids (ins-N)")
        verb.add_argument("--json", action="store_true", help="print machine-readable JSON")

    edit = command(
        commands,
        common,
        "edit",
        cmd_edit,
        "rewrite an insight as a new revision (older revisions are kept)",
        'incremind edit ins-3 "Review on days 1, 3, 7" --condition "when learning vocabulary"',
    )
    edit.add_argument("id", metavar="ID", help="the insight id (ins-N)")
    edit.add_argument("text", nargs="?", help="the new statement (leave out to change only the scope)")
    edit.add_argument("--condition", help="the new condition: when to recall it ('' clears it)")
    edit.add_argument("--scope", choices=SCOPES, help="global: every project; project: its own project only")
    edit.add_argument("--json", action="store_true", help="print machine-readable JSON")

    listing = command(
        commands,
        common,
        "insights",
        cmd_insights,
        "list insights by status, project and category",
        "incremind insights --status confirmed --category preference",
    )
    listing.add_argument("--status", choices=INSIGHT_STATUSES, help="only this status (default: all but rejected)")
    listing.add_argument("--project", type=project_arg, help="only this project")
    listing.add_argument("--category", choices=CATEGORIES, help="only this category")
    listing.add_argument("--limit", type=int, default=200, help="at most this many (default 200)")
    listing.add_argument("--json", action="store_true", help="print machine-readable JSON")

    history = command(
        commands,
        common,
        "history",
        cmd_history,
        "show an insight's revisions and audit trail",
        "incremind history ins-3",
    )
    history.add_argument("id", metavar="ID", help="the insight id (ins-N)")
    history.add_argument("--json", action="store_true", help="print machine-readable JSON")

    spent = command(
        commands,
        common,
        "receipts",
        cmd_receipts,
        "list every call made to an external model, with tokens and outcome",
        "incremind receipts --since 2026-12-01",
    )
    spent.add_argument("--since", metavar="DATE", help="only calls on or after this day or time (ISO 8601)")
    spent.add_argument("--limit", type=int, default=None, help="at most this many, newest first")
    spent.add_argument("--json", action="store_true", help="print machine-readable JSON")


def insight_number(value: str) -> int:
    """Parse ``ins-12`` (or ``12``) into 12, or raise NotFound."""
    from incremind_daemon.store.items import split_item_id

    bare = value.strip()
    if bare.isdigit():  # any script's digits: only ASCII ones within an id's range are one
        number = parse_row_number(bare)
        if number is None:
            raise NotFound(f"'{bare[:40]}' is not an insight id; insight ids look like ins-4 (digits 0-9)")
        return number
    kind, number = split_item_id(value)
    if kind != "insight":
        raise NotFound(f"'{value}' is not an insight id; insight ids look like ins-4")
    return number


def cmd_pending(args: argparse.Namespace, settings: Settings) -> int:
    """List candidate insights waiting for review."""
    from incremind_daemon.cli.insight_view import insight_data, render_insight
    from incremind_daemon.store import insights

    conn = runtime.open_store(settings)
    try:
        found = insights.list_insights(conn, status="pending", project=args.project)
        data = [insight_data(conn, insight, home=settings.home_dir) for insight in reversed(found)]
    finally:
        conn.close()
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    if not data:
        print("nothing pending")
        return 0
    print("\n\n".join(render_insight(entry) for entry in data))
    print(f"\n{len(data)} pending: `incremind confirm ID...` or `incremind confirm --all`, `incremind reject ID...`")
    return 0


def cmd_confirm(args: argparse.Namespace, settings: Settings) -> int:
    """Confirm pending insights."""
    from incremind_daemon.store import insights

    if args.all == bool(args.ids):
        raise IncremindError("name insight ids to confirm, or use --all (not both)")
    if args.all:
        conn = runtime.open_store(settings)
        try:
            # oldest first, as they were said: a newer insight that replaces an older pending one is
            # confirmed after it and supersedes it, rather than leaving it to fail the whole batch
            ids = sorted(i.id for i in insights.list_insights(conn, status="pending", project=args.project))
        finally:
            conn.close()
        return _review(settings, ids, "confirm", wants_json=args.json, skip_superseded=True)
    if args.project:
        raise IncremindError("--project goes with --all")
    return _review(settings, [insight_number(value) for value in args.ids], "confirm", wants_json=args.json)


def cmd_reject(args: argparse.Namespace, settings: Settings) -> int:
    """Reject pending insights."""
    return _review(settings, [insight_number(v) for v in args.ids], "reject", wants_json=args.json)


def cmd_forget(args: argparse.Namespace, settings: Settings) -> int:
    """Take insights out of recall and context."""
    return _review(settings, [insight_number(v) for v in args.ids], "forget", wants_json=args.json)


def cmd_restore(args: argparse.Namespace, settings: Settings) -> int:
    """Bring forgotten insights back."""
    return _review(settings, [insight_number(v) for v in args.ids], "restore", wants_json=args.json)


def _review(settings: Settings, ids: list[int], verb: str, *, wants_json: bool, skip_superseded: bool = False) -> int:
    """Apply a verb to insights in one transaction; print each one's status once all are done.

    ``skip_superseded``: an insight that an earlier one of the batch has just superseded is left as
    it is (``confirm --all``), not an error.
    """
    from incremind_daemon.store import clock, insights

    def change(conn: apsw.Connection) -> list[dict[str, Any]]:  # all or nothing: a bad id changes nothing
        retired: dict[int, list[int]] = {}
        for insight_id in ids:
            if skip_superseded and insights.get_insight(conn, insight_id).status == "superseded":
                continue
            # what confirming it retires, read before: once confirmed, these are no longer in use
            retired[insight_id] = (
                [old for old, _ in insights.superseded_by(conn, insight_id)] if verb == "confirm" else []
            )
            insights.review(conn, insight_id, verb, actor="cli", now=clock.stamp())
        # read after the batch: an insight confirmed early may be superseded by a later one
        return [
            {
                "id": item_id("insight", insight_id),
                "status": insights.get_insight(conn, insight_id).status,
                "retired": [
                    {"id": item_id("insight", old), "statement": insights.get_insight(conn, old).statement}
                    for old in retired.get(insight_id, [])
                ],
            }
            for insight_id in ids
        ]

    done = runtime.write(settings, change)
    if wants_json:
        print(json.dumps(done, ensure_ascii=False, indent=2))
    elif not done:
        print(f"nothing to {verb}")
    else:
        for entry in done:
            print(f"{entry['id']}  {entry['status']}")
            for old in entry["retired"]:  # what confirming it took out of use, and how to bring it back
                print(f"  {old['id']}  superseded: {_short(old['statement'])}  (restore {old['id']} to undo)")
    return 0


def _short(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def cmd_edit(args: argparse.Namespace, settings: Settings) -> int:
    """Rewrite an insight as a new revision."""
    from incremind_daemon.cli.insight_view import insight_data, render_insight
    from incremind_daemon.store import clock, insights

    number = insight_number(args.id)
    if args.text is None and args.scope is None:
        raise IncremindError("give the new statement, --scope global|project, or both")

    def change(conn: apsw.Connection) -> dict[str, object]:
        insight = insights.get_insight(conn, number)
        if args.text is not None:
            insight = insights.edit_insight(
                conn, number, statement=args.text, condition=args.condition, actor="cli", now=clock.stamp()
            )
        if args.scope is not None:
            insight = insights.set_scope(conn, number, args.scope, actor="cli", now=clock.stamp())
        return insight_data(conn, insight, home=settings.home_dir)

    data = runtime.write(settings, change)
    print(json.dumps(data, ensure_ascii=False, indent=2) if args.json else render_insight(data))
    return 0


def cmd_insights(args: argparse.Namespace, settings: Settings) -> int:
    """List insights by status, project and category."""
    from incremind_daemon.cli.insight_view import insight_data, render_insight
    from incremind_daemon.store import insights

    statuses = args.status or [s for s in INSIGHT_STATUSES if s != "rejected"]
    conn = runtime.open_store(settings)
    try:
        found = insights.list_insights(
            conn, status=statuses, project=args.project, category=args.category, limit=args.limit
        )
        data = [insight_data(conn, insight, home=settings.home_dir) for insight in found]
    finally:
        conn.close()
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print("\n\n".join(render_insight(entry) for entry in data) if data else "no insights")
    return 0


def cmd_history(args: argparse.Namespace, settings: Settings) -> int:
    """Show an insight's revisions and audit trail."""
    from incremind_daemon.cli.insight_view import render_history

    conn = runtime.open_store(settings)
    try:
        text, data = render_history(conn, insight_number(args.id))
    finally:
        conn.close()
    print(json.dumps(data, ensure_ascii=False, indent=2) if args.json else text)
    return 0


def cmd_receipts(args: argparse.Namespace, settings: Settings) -> int:
    """List every call made to an external model."""
    from incremind_daemon.store import clock, receipts
    from incremind_daemon.store.db import connect

    found: list[receipts.Receipt] = []
    budget = None
    if settings.database_path.exists():
        conn = connect(settings.database_path, readonly=True)
        try:
            found = receipts.list_receipts(conn, since=args.since, limit=args.limit)
            budget = receipts.budget_state(conn, settings.model, clock.now().date())
        finally:
            conn.close()
    if args.json:
        print(json.dumps([asdict(r) for r in found], ensure_ascii=False, indent=2))
        return 0
    for r in found:
        print(
            f"{r.at}  {r.purpose:<9} {r.model} @ {r.endpoint}  [{r.project}]  "
            f"{r.input_tokens}+{r.output_tokens} tokens  {r.duration_ms} ms  {r.outcome}"
        )
    total = sum(r.input_tokens + r.output_tokens for r in found)
    print(f"{len(found)} call(s), {total} tokens" if found else "no model calls")
    if budget is not None and settings.model.insight_path != "local":
        state = "spent: local rules until tomorrow (UTC)" if budget.exhausted else f"{budget.remaining} left"
        print(f"today: {budget.spent} of {budget.limit} tokens ({state})")
    return 0
