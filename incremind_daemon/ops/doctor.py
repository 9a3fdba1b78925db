"""`incremind doctor`: check what the daemon depends on, each with a one-line fix.

Every check is read-only (the database opens read-only, agent configs are
only parsed) except two probes that create and delete a file of their own:
whether a context folder and the inbox are writable. A check never raises;
an unexpected error becomes that check's failure.
"""

from __future__ import annotations

import http.client
import logging
import os
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import apsw
from pydantic import ValidationError

from incremind_daemon.config import Settings, with_agent_homes
from incremind_daemon.embedding.configured import make_embedder
from incremind_daemon.embedding.e5_small import INSTALL as E5_INSTALL
from incremind_daemon.errors import ConfigError, IncremindError
from incremind_daemon.locate import DEFAULT_HOME, config_path, is_own_socket, socket_path
from incremind_daemon.serve import agent_hooks, agent_setup
from incremind_daemon.serve.client import UnixConnection, daemon_answers, post_json
from incremind_daemon.serve.context.blockfile import BrokenMarkers, find_block, read_text_file
from incremind_daemon.serve.context.targets import global_targets
from incremind_daemon.serve.disk import format_size, low_space_bytes, measure_disk
from incremind_daemon.serve.gemini_trust import gemini_trust
from incremind_daemon.serve.mcp_auth import check_bind, endpoint_token, token_path
from incremind_daemon.serve.mcp_probe import Probe, probe_endpoint
from incremind_daemon.serve.status import mcp_off_reason, read_heartbeat, running_pid
from incremind_daemon.store import report
from incremind_daemon.store.db import connect, load_vectors, vector_version
from incremind_daemon.store.embedder import Embedder
from incremind_daemon.store.recall import context_targets
from incremind_daemon.store.schema import schema_version, stored_version
from incremind_daemon.store.search import probe_index

log = logging.getLogger(__name__)

Status = Literal["ok", "warn", "fail"]
HEALTH_TIMEOUT_SECONDS = 2.0
DISK_WARN_BYTES = 2 * 1024 * 1024 * 1024  # under this a warning; under low_space_bytes() a failure
# a two-character word inside a longer one: jieba cuts 复习资料 as one word
TOKENIZER_TEXT = "这份复习资料很有用"
TOKENIZER_QUERY = "复习"


@dataclass(frozen=True, slots=True)
class Check:
    """One finding: what was checked, how it went, and what to do about it."""

    name: str
    status: Status
    detail: str
    fix: str = ""


def settings_despite(home: Path | None) -> Settings:
    """Return the settings to check with when the configured ones cannot be loaded: the defaults.

    The home comes from --home, else INCREMIND_HOME. The environment is still
    honoured where it is valid; the config file is left out, since it is what
    is broken.
    """
    try:
        # environment and defaults only: no config file is named, so none is read
        return with_agent_homes(Settings() if home is None else Settings(home=home))
    except ValidationError:
        # the environment is broken as well: of it, only the home is taken
        where = home or Path(os.environ.get("INCREMIND_HOME") or DEFAULT_HOME)
        return with_agent_homes(Settings.model_construct(home=where))


def run_checks(
    settings: Settings, *, config: Path | None = None, config_error: ConfigError | None = None
) -> list[Check]:
    """Run every check in order; a check that crashes is reported as failed.

    With config_error, settings are the defaults (settings_despite) and the
    config check fails with that error; the other checks run all the same.
    """
    steps: list[Callable[[], list[Check]]] = [
        lambda: [check_config(settings, config, config_error)],
        lambda: [check_sqlite()],
        lambda: [check_database(settings)],
        lambda: checks_of_the_daemon(settings) or [check_tokenizer(), check_embedding(settings)],
        lambda: [check_disk(settings)],
        lambda: [check_token(settings)],
        lambda: check_agents(settings),
        lambda: check_context_targets(settings),
        lambda: [check_inbox(settings)],
        lambda: [check_daemon(settings)],
    ]
    found: list[Check] = []
    for step in steps:
        try:
            found.extend(step())
        except Exception as exc:  # a doctor reports, it does not crash
            log.debug("check failed", exc_info=True)
            found.append(Check("internal", "fail", f"a check crashed: {exc}", "report this as a bug"))
    return found


def check_config(settings: Settings, config: Path | None, error: ConfigError | None = None) -> Check:
    path = config_path(config, settings.home_dir)
    if error is not None:
        where = f"{path} (or the INCREMIND_* variable named)" if "INCREMIND_" in str(error) else str(path)
        fix = (
            f"correct {where} as the message says (config.example.json lists every setting); "
            "the daemon will not start until then, and the checks below used the defaults"
        )
        return Check("config", "fail", str(error), fix)
    where = str(path) if path.exists() else f"defaults (no {path})"
    try:
        check_bind(settings)
    except IncremindError as exc:
        return Check("config", "fail", f"{where}: {exc}", "set mcp.host or mcp.token_env as the message says")
    return Check("config", "ok", where)


def check_sqlite() -> Check:
    conn = apsw.Connection(":memory:")
    try:
        load_vectors(conn)
        vec = vector_version(conn)
    except IncremindError as exc:
        fix = "install Python from python.org or with uv (it must allow SQLite extensions), then reinstall incremind"
        return Check("sqlite", "fail", str(exc), fix)
    finally:
        conn.close()
    return Check("sqlite", "ok", f"SQLite {apsw.sqlite_lib_version()}, extension loading works, sqlite-vec {vec}")


def check_database(settings: Settings) -> Check:
    db = settings.database_path
    if not db.exists():
        return Check("database", "ok", f"{db} not created yet (the daemon creates it)")
    try:
        conn = connect(db, readonly=True)
    except (IncremindError, apsw.Error) as exc:
        return Check("database", "fail", f"cannot open {db}: {exc}", f"check the file's owner and permissions: {db}")
    try:
        version = stored_version(conn)
        sources = report.count_sources(conn) if version else 0
    except apsw.Error as exc:
        return Check("database", "fail", f"{db}: {exc}", "restore it from a backup: incremind restore-backup SRC")
    finally:
        conn.close()
    if version > schema_version():
        return Check(
            "database",
            "fail",
            f"{db} has schema v{version}, newer than this incremind (v{schema_version()})",
            "upgrade incremind: pip install -U incremind-daemon",
        )
    later = "" if version == schema_version() else f" (migrated to v{schema_version()} at the next start)"
    return Check("database", "ok", f"{db}: schema v{version}{later}, {sources} sources")


def check_tokenizer() -> Check:
    try:
        hits = probe_index(TOKENIZER_TEXT, TOKENIZER_QUERY)
    except apsw.Error as exc:
        return Check("tokenizer", "fail", f"the FTS5 tokenizer failed: {exc}", "reinstall: pip install -U apsw jieba")
    if hits != 1:
        return Check(
            "tokenizer",
            "fail",
            f"{TOKENIZER_QUERY} is not found inside {TOKENIZER_TEXT}: Chinese search would miss words",
            "reinstall jieba: pip install --force-reinstall jieba",
        )
    return Check("tokenizer", "ok", f"FTS5 with jieba: {TOKENIZER_QUERY} is found inside {TOKENIZER_TEXT}")


def checks_of_the_daemon(settings: Settings) -> list[Check]:
    """Have the running daemon check its segmenter and embedding model, which it holds loaded; [] without one.

    Loading them here would cost seconds and hundreds of megabytes for what
    the daemon can answer at once.
    """
    path = socket_path(settings.home_dir)
    if not is_own_socket(path):
        return []
    try:
        found = post_json(UnixConnection(path, timeout=HEALTH_TIMEOUT_SECONDS * 4), "/checks", {})
    except (OSError, http.client.HTTPException, ValueError):
        return []  # the daemon check below says what is wrong with it
    if not isinstance(found, list):
        return []
    return [Check(**entry) for entry in found if isinstance(entry, dict)]


def daemon_checks(settings: Settings, embedder: Embedder | None) -> list[Check]:
    """The checks the daemon runs for doctor, with the embedder it holds."""
    return [check_tokenizer(), check_embedding(settings, embedder, held=True)]


def check_embedding(settings: Settings, embedder: Embedder | None = None, *, held: bool = False) -> Check:
    """Embed a sentence with the configured model: loaded here, or the daemon's (``held``)."""
    backend = settings.embedding.backend
    if backend == "none":
        return Check(
            "embedding",
            "warn",
            "embedding.backend is none: search by words only",
            "for search by meaning set embedding.backend to use-m3 or e5-small (built in) in config.json",
        )
    started = time.monotonic()
    try:
        if not held:
            embedder = make_embedder(settings)
        if embedder is None:
            return Check("embedding", "warn", f"backend {backend} gives no embedder", "check embedding in config.json")
        try:
            vector = embedder.embed_query("How do I review vocabulary? 怎么复习单词?")
            identity = embedder.identity
        finally:
            if not held:
                embedder.close()
    except (IncremindError, OSError, RuntimeError, ValueError) as exc:
        fix = {
            "onnx": "install the model (incremind model list; incremind model install NAME) or choose another",
            "http": "check embedding.base_url, embedding.model and the API key variable; is the endpoint up?",
            "e5-small": f"{E5_INSTALL}, or set embedding.backend to use-m3",
        }.get(backend, "reinstall incremind, or set embedding.backend to none for words-only search")
        return Check("embedding", "fail", f"backend {backend}: {exc}", fix)
    seconds = time.monotonic() - started
    return Check(
        "embedding",
        "ok",
        f"backend {backend}: {identity.name}, {len(vector)}-d, "
        + ("the running daemon's model embedded" if held else "loaded and embedded")
        + f" a sentence in {seconds:.1f} s",
    )


def check_disk(settings: Settings) -> Check:
    disk = measure_disk(settings)
    free, where = disk.free_bytes, disk.path
    shown = f"{format_size(free)} free at {where}"
    if free < low_space_bytes(settings):
        shown += f" (under {format_size(low_space_bytes(settings))}, room for a few of the largest files)"
        return Check("disk", "fail", shown, "free some space: files wait in the inbox while the disk is full")
    if free < DISK_WARN_BYTES:
        return Check("disk", "warn", shown, "free some space soon, or move the home (--home) to a larger disk")
    return Check("disk", "ok", shown)


def check_agents(settings: Settings) -> list[Check]:
    """Each agent: is its folder there, and is the memory server registered with it."""
    found: list[Check] = []
    for agent in agent_setup.AGENTS:
        source = getattr(settings.sessions, agent)
        name = f"agent {agent}"
        if not source.enabled:
            found.append(Check(name, "ok", f"off (sessions.{agent}.enabled is false)"))
            continue
        folder = source.dir.expanduser() if source.dir else None
        if folder is None or not folder.is_dir():
            found.append(
                Check(name, "warn", f"{folder} not found: not installed?", f"install it, or set sessions.{agent}.dir")
            )
            continue
        where = agent_setup.config_path(agent, settings)
        try:
            entry = agent_setup.registered_entry(agent, settings)
        except IncremindError as exc:
            found.append(Check(name, "warn", f"{folder}; {exc}", f"fix {where} by hand"))
        else:
            found.append(_check_entry(agent, entry, settings, f"{folder}; memory tools"))
            if agent == "gemini" and entry is not None:
                notice = gemini_trust(folder).notice()
                if notice:
                    found.append(Check("gemini trusted folders", "warn", notice, "trust the folders you work in"))
        found.append(check_hook(agent, settings))
    return found


def _check_entry(agent: str, entry: object, settings: Settings, what: str) -> Check:
    """Is our registered entry there, and (over HTTP) does it reach this home's endpoint with the current token."""
    name = f"agent {agent}"
    where = agent_setup.config_path(agent, settings)
    if entry is None:
        return Check(name, "warn", f"{what} not registered", f"incremind setup {agent}")
    if agent_setup.http_url_of(agent, entry) is None:
        return Check(name, "ok", f"{what} registered in {where}")
    try:
        token = endpoint_token(settings)
    except IncremindError:
        token = None  # the config or token check says why
    problem = agent_setup.access_problem(agent, entry, agent_setup.http_registration(settings, token))
    mode = stat.S_IMODE(where.stat().st_mode)
    if not problem and token and not settings.mcp.token_env and mode & 0o077:
        # the agent itself may have rewritten the file with its own mode
        problem = f"others may read the token in it (mode {mode:04o})"
    if problem:
        return Check(name, "fail", f"{what} registered over HTTP in {where}, but {problem}", f"incremind setup {agent}")
    return Check(name, "ok", f"{what} registered over HTTP in {where}, with the current token")


def check_hook(agent: str, settings: Settings) -> Check:
    """Is the agent's SessionStart hook installed, switched on and (Codex) approved."""
    name = f"hook {agent}"
    where = agent_hooks.hook_path(agent, settings)
    only_global = f"until then {agent} gets only the compact global block, not the project's"
    try:
        installed = agent_hooks.find_session_hook(agent, settings) is not None
        off = agent_hooks.hooks_turned_off(agent, settings)
        trusted = agent_hooks.is_hook_trusted(agent, settings)
    except IncremindError as exc:
        return Check(name, "warn", str(exc), f"fix {where} by hand, then incremind setup {agent}")
    if not installed:
        return Check(name, "warn", f"no SessionStart hook in {where}; {only_global}", f"incremind setup {agent}")
    if off:
        return Check(name, "warn", f"SessionStart hook installed, but {off}; {only_global}", "turn hooks back on there")
    if not trusted:
        return Check(
            name,
            "warn",
            f"SessionStart hook in {where} waits for your approval in Codex; {only_global}",
            "start codex and approve the incremind hook when it says a hook needs review (or in /hooks)",
        )
    return Check(name, "ok", f"SessionStart hook in {where}")


def mcp_registered(agent: str, settings: Settings) -> tuple[bool, str]:
    """Tell whether the agent's config names an incremind server; second: why it could not be read."""
    try:
        return agent_setup.registered_entry(agent, settings) is not None, ""
    except IncremindError as exc:
        return False, str(exc)


def check_token(settings: Settings) -> Check:
    """Is the endpoint's token there, usable and the person's alone (or taken from mcp.token_env)."""
    if settings.mcp.token_env:
        try:
            endpoint_token(settings)
        except IncremindError as exc:
            return Check("token", "fail", str(exc), f"set {settings.mcp.token_env} where the daemon starts")
        return Check("token", "ok", f"taken from ${settings.mcp.token_env} (mcp.token_env)")
    path = token_path(settings.home_dir)
    try:
        token = endpoint_token(settings)
    except IncremindError as exc:
        return Check("token", "fail", str(exc), "incremind token rotate")
    if token is None:
        return Check("token", "warn", f"{path} not made yet", "incremind start (or incremind init) makes it")
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        return Check("token", "fail", f"{path} is readable by others ({mode:04o})", f"chmod 600 {path}")
    return Check("token", "ok", f"{path} (0600)")


def check_context_targets(settings: Settings) -> list[Check]:
    """Each agent's global instruction file: can the daemon keep its block there."""
    if not settings.context.enabled:
        return [Check("context", "ok", "off (context.enabled is false)")]
    found: list[Check] = []
    for target in global_targets(settings, {}):
        name = f"context {target.agent}"
        problem = _unwritable(target.path)
        if problem:
            fix = f"make it writable, or set context.{target.agent}.enabled to false"
            found.append(Check(name, "fail", f"{target.path}: {problem}", fix))
        elif broken := _broken_markers(target.path):
            found.append(Check(name, "fail", f"{target.path}: {broken}; its block is not kept", _MARKER_FIX))
        else:
            found.append(Check(name, "ok", f"{target.path} writable"))
    for path in _enabled_files(settings):
        if broken := _broken_markers(path):
            found.append(Check("context file", "fail", f"{path}: {broken}; its block is not kept", _MARKER_FIX))
    if not found:
        found.append(Check("context", "ok", "no agent installed yet: no global file to keep"))
    return found


_MARKER_FIX = (
    "open the file and delete the incremind marker lines left over (or the whole block between them); "
    "the daemon writes a fresh block within seconds"
)


def _broken_markers(path: Path) -> str:
    """Say what is wrong with a file's incremind markers (empty when they are fine or absent)."""
    try:
        find_block(read_text_file(path).text)
    except BrokenMarkers as exc:
        return str(exc)
    except (OSError, UnicodeDecodeError):
        return ""  # unreadable: the writability check and status say so
    return ""


def _enabled_files(settings: Settings) -> list[Path]:
    """Return the repository files the person enabled with ``context enable``."""
    if not settings.database_path.exists():
        return []
    conn = connect(settings.database_path, readonly=True)
    try:
        return [Path(row.path) for row in context_targets(conn) if row.kind == "project" and row.enabled]
    finally:
        conn.close()


def _unwritable(path: Path) -> str:
    """Say why the daemon could not write path (empty when it can), by trying in its folder."""
    if path.is_dir():
        return "is a folder, not a file"
    if path.exists() and not os.access(path, os.W_OK):
        return "the file is read-only"
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".incremind-doctor-"):
            pass
    except OSError as exc:
        return f"its folder is not writable ({exc.strerror})"
    return ""


def check_inbox(settings: Settings) -> Check:
    inbox = settings.inbox_dir
    if not inbox.exists():
        return Check("inbox", "warn", f"{inbox} does not exist yet", "incremind init (or start the daemon)")
    if not inbox.is_dir():
        return Check("inbox", "fail", f"{inbox} is not a folder", f"move it away; the daemon makes the folder: {inbox}")
    mode = inbox.stat().st_mode
    if not os.access(inbox, os.R_OK | os.W_OK | os.X_OK):
        return Check("inbox", "fail", f"{inbox} is not readable and writable by you", f"chmod u+rwx {inbox}")
    try:
        with tempfile.NamedTemporaryFile(dir=inbox, prefix=".incremind-doctor-"):
            pass
    except OSError as exc:
        return Check("inbox", "fail", f"{inbox}: cannot create a file ({exc.strerror})", f"chmod u+rwx {inbox}")
    if mode & stat.S_IWOTH:
        return Check(
            "inbox", "warn", f"{inbox} is writable by every user: anyone can feed memory", f"chmod o-w {inbox}"
        )
    return Check("inbox", "ok", f"{inbox} ({stat.filemode(mode)})")


def check_daemon(settings: Settings) -> Check:
    """The daemon answers on its socket, and over HTTP, to this home's token, as this home's daemon."""
    pid = running_pid(settings)
    if pid is None:
        stranger = _stranger_on_the_port(settings)
        if stranger is not None:
            return Check("daemon", "fail", f"not running, and {stranger.explain()}", stranger.fix())
        return Check("daemon", "warn", "not running", "incremind start (or incremind service install)")
    path = socket_path(settings.home_dir)
    if not (is_own_socket(path) and daemon_answers(path, HEALTH_TIMEOUT_SECONDS)):
        return Check(
            "daemon",
            "fail",
            f"running (pid {pid}) but its socket {path} does not answer",
            "incremind restart; if it persists, see incremind logs",
        )
    if not settings.mcp.enabled:
        return Check("daemon", "ok", f"running (pid {pid}), answering on its socket; MCP over HTTP off (mcp.enabled)")
    beat = read_heartbeat(settings.status_path)
    url = beat.mcp_url if beat is not None and beat.pid == pid else None
    if url is None:
        why = mcp_off_reason(beat) if beat is not None else None
        stranger = _stranger_on_the_port(settings)
        return Check(
            "daemon",
            "fail",
            f"running (pid {pid}) but not serving MCP over HTTP"
            + (f" ({why})" if why else "")
            + (f"; {stranger.explain()}" if stranger is not None else ""),
            "set mcp.port to a free port (or stop what holds it) and incremind restart; agents set up with "
            "--http cannot reach memory until then",
        )
    probe = probe_endpoint(url, _token_or_none(settings), settings.home_dir, HEALTH_TIMEOUT_SECONDS)
    if probe.verdict == "unreachable":
        return Check(
            "daemon",
            "fail",
            f"running (pid {pid}) but {probe.explain()}",
            "incremind restart; if it persists, see incremind logs",
        )
    if probe.verdict != "ours":
        return Check("daemon", "fail", f"running (pid {pid}), but {probe.explain()}", probe.fix())
    return Check("daemon", "ok", f"running (pid {pid}); {probe.url} answers for this home")


def _token_or_none(settings: Settings) -> str | None:
    try:
        return endpoint_token(settings)
    except IncremindError:
        return None  # the token check says why


def _stranger_on_the_port(settings: Settings) -> Probe | None:
    """Return what answers on this home's MCP port when it is not this home's daemon (None: nothing, or ours)."""
    if not settings.mcp.enabled or settings.mcp.port == 0:
        return None
    url = agent_setup.http_registration(settings, None).url
    assert url is not None
    probe = probe_endpoint(url, _token_or_none(settings), settings.home_dir, HEALTH_TIMEOUT_SECONDS)
    return None if probe.verdict in ("ours", "unreachable") else probe


def format_checks(checks: list[Check]) -> str:
    """Render the checks as aligned lines, each problem followed by its fix."""
    width = max((len(c.name) for c in checks), default=0)
    lines: list[str] = []
    for c in checks:
        lines.append(f"{c.status:<4}  {c.name:<{width}}  {c.detail}")
        if c.status != "ok" and c.fix:
            lines.append(f"{'':<4}  {'':<{width}}  fix: {c.fix}")
    fails = sum(c.status == "fail" for c in checks)
    warns = sum(c.status == "warn" for c in checks)
    lines.append(f"{fails} failed, {warns} warnings, {len(checks) - fails - warns} ok")
    return "\n".join(lines)
