"""Attacks on a running daemon over HTTP while a well-behaved agent keeps searching.

Run from the repository root:

    PYTHONPATH=. python benchmarks/attack.py            # the counts of issue 17; about 3 minutes
    PYTHONPATH=. python benchmarks/attack.py --quick    # fewer requests and notes; about 2 minutes

A real daemon (``incremind run``) starts on a temporary home with MCP over
HTTP on a free port and the default embedding model; a few generated notes
are dropped into its inbox and taken in and embedded before the attacks. A
well-behaved agent (the SDK's client, in a session with the home's token)
calls search_memory every ~100 ms on a thread throughout. For each attack the
script prints what the attacker got, the daemon's peak RSS (VmRSS every
50 ms) and the agent's search latency p50/p95 and errors while it ran:

  a. requests without a token, and with a wrong one
  b. a 450 KB query and a 300 KB one of distinct words
  c. a 10 MB save and a 190 KB one
  d. session initializations in a loop; then a new agent session
  e. connections that send a byte a second, and ones that send nothing
  f. SIGTERM with the session table full and the attackers' connections held

Then another home's daemon takes the port, and the first home's ``doctor``
and ``status`` are shown, with the first daemon stopped and started again.
Figures are printed, never asserted.
"""

from __future__ import annotations

from benchmarks.isolation import isolate_home

ROOT = isolate_home("incremind-bench-attack-http-")  # before incremind_daemon is imported

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import anyio  # noqa: E402
import httpx  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402

from benchmarks.attack_client import (  # noqa: E402
    ACCEPT,
    ClosedWatch,
    RawSession,
    WellBehavedAgent,
    Window,
    bearer,
    describe_reply,
    initialize,
    open_silent,
)
from benchmarks.corpus import build_queries, corpus_text, distinct_words, generate_documents  # noqa: E402
from benchmarks.figures import machine_line, percentile, progress  # noqa: E402
from benchmarks.processes import RssSampler, check_alive, daemon_env, start_daemon, stop_daemon, wait_for  # noqa: E402

HOME = Path(os.environ["INCREMIND_HOME"])
KB = 1_000
RSS_EVERY = 0.05


@dataclass(frozen=True, slots=True)
class Plan:
    documents: int
    refused: int  # requests of each kind in attack a
    sessions: int  # initializations in attack d
    slow: int
    silent: int


FULL = Plan(documents=40, refused=1_000, sessions=10_000, slow=20, silent=200)
QUICK = Plan(documents=10, refused=200, sessions=1_000, slow=20, silent=200)


@dataclass(frozen=True, slots=True)
class Row:
    attack: str
    outcome: str
    seconds: float
    peak_mb: float
    agent: Window


@dataclass
class Target:
    """The daemon under attack, and the agent that uses it meanwhile."""

    process: subprocess.Popen[bytes]
    env: dict[str, str]
    port: int
    token: str
    agent: WellBehavedAgent
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def pid(self) -> int:
        return self.process.pid


def measure(target: Target, name: str, attack: Callable[[], str]) -> Row:
    """Run one attack; return its outcome with the daemon's peak RSS and the agent's calls meanwhile."""
    progress(f"{name} …")
    started = time.monotonic()
    with RssSampler(target.pid, every=RSS_EVERY) as rss:
        outcome = attack()
    ended = time.monotonic()
    row = Row(name, outcome, ended - started, rss.peak_mb, target.agent.window(started, ended))
    progress(f"  {outcome}")
    return row


# --- the attacks -------------------------------------------------------------------


def refused(target: Target, count: int, token: str | None) -> str:
    """Send count initialize requests with the given token (None: none); count the statuses."""
    statuses: Counter[int] = Counter()
    leaked = 0
    started = time.monotonic()
    with httpx.Client(timeout=30) as http:
        for _ in range(count):
            answer = http.post(target.url, json=initialize(), headers={"Accept": ACCEPT, **bearer(token)})
            statuses[answer.status_code] += 1
            leaked += target.token in answer.text
    rate = count / (time.monotonic() - started)
    return f"{_counts(statuses)} ({rate:.0f} requests/s); answers holding the home's token: {leaked}"


def search_call(session: RawSession, query: str) -> str:
    started = time.monotonic()
    answer = session.call("search_memory", {"query": query, "limit": 10})
    return f"{describe_reply(answer)} [{time.monotonic() - started:.2f} s, {len(query.encode()) / KB:,.0f} KB sent]"


def save_call(session: RawSession, text: str) -> str:
    started = time.monotonic()
    try:
        answer = session.call("save_memory", {"text": text, "project": "attack"})
        said = describe_reply(answer)
    except httpx.HTTPError as exc:
        said = f"connection ended before an answer: {type(exc).__name__} {exc}"
    return f"{said} [{time.monotonic() - started:.2f} s]"


def session_flood(target: Target, count: int) -> str:
    """Open count sessions in a loop; then try a new agent session of each protocol era."""
    statuses: Counter[int] = Counter()
    first_refusal: int | None = None
    started = time.monotonic()
    with httpx.Client(timeout=30) as http:
        for number in range(count):
            status = RawSession(http, target.url, target.token).open()
            statuses[status] += 1
            if status != 200 and first_refusal is None:
                first_refusal = number + 1
    seconds = time.monotonic() - started
    legacy = new_agent(target, "legacy")
    modern = new_agent(target, "auto")
    return (
        f"{_counts(statuses)} in {seconds:.0f} s (first refusal at #{first_refusal}); afterwards a new agent "
        f"session with the handshake: {legacy}; a new client without a session (2026 protocol): {modern}"
    )


def new_agent(target: Target, mode: str) -> str:
    """Open a new SDK client in mode and search once; say what happened."""

    async def attempt() -> str:
        http = create_mcp_http_client(headers=bearer(target.token))
        with anyio.fail_after(30):
            async with http, Client(streamable_http_client(target.url, http_client=http), mode=mode) as client:
                result = await client.call_tool("search_memory", {"query": "端口 配置"})
        return "tool error" if result.is_error else "answered"

    try:
        return anyio.run(attempt)
    except BaseException as exc:  # the figure is what it raised
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = exc.exceptions[0]
        return f"failed ({type(exc).__name__}: {str(exc)[:80]})"


def trickled_request(target: Target) -> bytes:
    body = json.dumps(initialize()).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{target.port}\r\nAuthorization: Bearer {target.token}\r\n"
        f"Accept: {ACCEPT}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def slow_and_silent(target: Target, plan: Plan) -> str:
    """Hold silent and slow connections until the server closes them; probe with new clients meanwhile."""
    silent = open_silent(target.port, plan.silent)
    slow = open_silent(target.port, plan.slow)
    request = trickled_request(target)
    newcomers: Counter[str] = Counter()
    with ClosedWatch(silent + slow, dict.fromkeys(slow, request)) as watch:
        deadline = time.monotonic() + 40
        while not watch.wait_all_closed(0.5) and time.monotonic() < deadline:
            try:
                answer = httpx.get(f"http://127.0.0.1:{target.port}/health", headers=bearer(target.token), timeout=5)
                newcomers[str(answer.status_code)] += 1
            except httpx.HTTPError as exc:
                newcomers[type(exc).__name__] += 1
        quiet, trickling = watch.seconds(silent), watch.seconds(slow)
        answered = dict(watch.answered)
    return (
        f"{plan.silent} silent: {_spread(quiet, plan.silent)}; {plan.slow} sending a byte a second: "
        f"{_spread(trickling, plan.slow)}; a new client's /health every 0.5 s meanwhile: "
        f"{_counts(newcomers)}" + (f"; server wrote to held ones: {answered}" if answered else "")
    )


def sigterm_under_load(target: Target, plan: Plan, sessions: list[RawSession]) -> str:
    """SIGTERM with the session table full, calls in flight and connections held; say how long the process took.

    ``sessions`` were opened before the flood filled the table: the first saves 190 KB (the writer is
    busy with it for seconds), the others search with 450 KB queries back to back.
    """
    documents = [d.text for d in generate_documents(plan.documents)]
    got: Counter[str] = Counter()
    calls = [threading.Thread(target=_save, args=(sessions[0], corpus_text(190 * KB, documents[::-1]), got))]
    query = corpus_text(450 * KB, documents)
    calls += [threading.Thread(target=_searches, args=(s, query, got)) for s in sessions[1:]]
    for thread in calls:
        thread.start()
    time.sleep(1.0)  # the save is with the writer, the searches are coming and going
    silent = open_silent(target.port, plan.silent)
    slow = open_silent(target.port, plan.slow)
    half_body = socket_with_half_a_body(target)
    with ClosedWatch([*silent, *slow, half_body], dict.fromkeys(slow, trickled_request(target))):
        started = time.monotonic()
        target.process.send_signal(signal.SIGTERM)
        try:
            code = target.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            target.process.kill()
            return "still running 60 s after SIGTERM: killed"
        seconds = time.monotonic() - started
    for thread in calls:
        thread.join(30)
    return (
        f"exited {code} {seconds:.1f} s after SIGTERM, with the session table full (from d), "
        f"{plan.silent} silent + {plan.slow} slow connections and one half-sent 500 KB body held, a 190 KB save "
        f"and {len(sessions) - 1} clients' 450 KB searches in flight; those calls got: {_counts(got)}"
    )


def _save(session: RawSession, text: str, got: Counter[str]) -> None:
    try:
        answer = session.call("save_memory", {"text": text, "project": "attack"}, timeout=60)
        got["save: " + describe_reply(answer)[:60]] += 1
    except httpx.HTTPError as exc:
        got[f"save: {type(exc).__name__}"] += 1


def _searches(session: RawSession, query: str, got: Counter[str]) -> None:
    """Search until the daemon stops answering."""
    while True:
        try:
            answer = session.call("search_memory", {"query": query}, timeout=60)
        except httpx.HTTPError as exc:
            got[f"search: {type(exc).__name__}"] += 1
            return
        got[f"search: HTTP {answer.status_code}"] += 1
        if answer.status_code != 200:
            return


def socket_with_half_a_body(target: Target) -> socket.socket:
    conn = open_silent(target.port, 1)[0]
    conn.setblocking(True)
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{target.port}\r\nAuthorization: Bearer {target.token}\r\n"
        f"Accept: {ACCEPT}\r\nContent-Type: application/json\r\nContent-Length: 500000\r\n\r\n"
    )
    conn.sendall(head.encode() + b"[" + b" " * 250_000)
    conn.setblocking(False)
    return conn


# --- another home's daemon on the port ------------------------------------------


def cli_lines(env: dict[str, str], *args: str, keep: Callable[[list[str]], list[str]]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "incremind_daemon", *args], env=env, capture_output=True, text=True, timeout=120
    )
    lines = keep((done.stdout + done.stderr).splitlines())
    return [f"`incremind {' '.join(args)}` exited {done.returncode}", *(f"    {line}" for line in lines)]


def daemon_check(lines: list[str]) -> list[str]:
    """doctor's daemon check and its fix line."""
    for number, line in enumerate(lines):
        if line.split()[1:2] == ["daemon"]:
            return lines[number : number + 2] if "fix:" in "".join(lines[number + 1 : number + 2]) else [line]
    return []


def daemon_and_mcp(lines: list[str]) -> list[str]:
    return [line for line in lines if line.lstrip().startswith(("daemon", "mcp ", "last error"))]


def first_home_says(env: dict[str, str]) -> list[str]:
    return [*cli_lines(env, "doctor", keep=daemon_check), *cli_lines(env, "status", keep=daemon_and_mcp)]


def another_home(target: Target) -> list[str]:
    """Start another home's daemon on the first one's port; return what the first home's commands say."""
    other = ROOT / "other"
    (other / ".incremind").mkdir(parents=True)
    other_env = daemon_env(
        other / ".incremind", user_home=other, INCREMIND_MCP__PORT=str(target.port), INCREMIND_EMBEDDING__BACKEND="none"
    )
    stranger = start_daemon(other_env, ROOT / "other-daemon.log")
    lines = [f"another home's daemon (pid {stranger.pid}) on port {target.port}, the first home's stopped:"]
    try:
        wait_for(lambda: (other / ".incremind" / "token").exists(), 60, "the other home's token")
        other_token = (other / ".incremind" / "token").read_text(encoding="ascii").strip()
        wait_for(lambda: _health(target.port, other_token) == 200, 60, "the other daemon's /health")
        lines += first_home_says(target.env)
        again = start_daemon(target.env, ROOT / "daemon-again.log")
        try:
            wait_for(lambda: _heartbeat_of(again.pid), 60, "the first home's daemon, started again")
            lines += ["the first home's daemon started again while the other holds the port:"]
            lines += first_home_says(target.env)
        finally:
            stop_daemon(again)
    finally:
        stop_daemon(stranger)
    return lines


def _heartbeat_of(pid: int) -> bool:
    try:
        return int(json.loads((HOME / "status.json").read_text(encoding="utf-8"))["pid"]) == pid
    except (OSError, ValueError, KeyError):
        return False


def _health(port: int, token: str) -> int:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/health", headers=bearer(token), timeout=2).status_code
    except httpx.HTTPError:
        return 0


# --- setting up ----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def memory_ready(env: dict[str, str]) -> bool:
    """The inbox is empty, and every item has its vector of the default model."""
    done = subprocess.run(
        [sys.executable, "-m", "incremind_daemon", "status", "--json"], env=env, capture_output=True, text=True
    )
    try:
        report = json.loads(done.stdout)
    except ValueError:
        return False
    vectors = report.get("embeddings") or []
    return (
        report["inbox"]["waiting"] == 0
        and report["tiers"].get("raw", 0) > 0
        and bool(vectors)
        and all(v["state"] == "active" and v["embedded"] == v["total"] for v in vectors)
    )


def start_target(plan: Plan) -> Target:
    port = free_port()
    env = daemon_env(HOME, INCREMIND_MCP__PORT=str(port), INCREMIND_INBOX__RESCAN_SECONDS="1")
    inbox = HOME / "inbox" / "notes"
    inbox.mkdir(parents=True)
    for document in generate_documents(plan.documents):
        (inbox / document.name).write_text(document.text, encoding="utf-8")
    log_path = ROOT / "daemon.log"
    process = start_daemon(env, log_path)
    started = time.monotonic()
    wait_for(lambda: (HOME / "token").exists() or process.poll() is not None, 120, "the daemon's token")
    check_alive(process, log_path)
    token = (HOME / "token").read_text(encoding="ascii").strip()
    wait_for(lambda: memory_ready(env), 900, "the notes taken in and embedded", every=1.0)
    progress(f"{plan.documents} notes taken in and embedded in {time.monotonic() - started:.0f} s")
    agent = WellBehavedAgent(f"http://127.0.0.1:{port}/mcp", token, [q.text for q in build_queries()])
    return Target(process, env, port, token, agent, log_path)


def run_attacks(target: Target, plan: Plan) -> list[Row]:
    rows = [measure(target, "quiet (no attack), 5 s", lambda: _quiet(5.0))]
    rows.append(measure(target, f"a. {plan.refused:,} with no token", lambda: refused(target, plan.refused, None)))
    wrong = "a-wrong-token-of-the-right-length-0123456789"
    rows.append(
        measure(target, f"a. {plan.refused:,} with a wrong token", lambda: refused(target, plan.refused, wrong))
    )
    with httpx.Client(timeout=120) as http:
        session = RawSession(http, target.url, target.token)
        session.open()
        documents = [d.text for d in generate_documents(plan.documents)]
        big = corpus_text(450 * KB, documents)
        distinct = distinct_words(300 * KB, "端口")
        rows.append(measure(target, "b. a 450 KB query", lambda: search_call(session, big)))
        rows.append(measure(target, "b. a 300 KB query, distinct words", lambda: search_call(session, distinct)))
        ten_mb = corpus_text(10_000 * KB, documents)
        rows.append(measure(target, "c. a 10 MB save", lambda: save_call(session, ten_mb)))
        largest = corpus_text(190 * KB, documents)
        rows.append(measure(target, "c. a 190 KB save", lambda: save_call(session, largest)))
    rows.append(measure(target, "c. the save embedded meanwhile", lambda: _until_ready(target)))
    kept = [RawSession(httpx.Client(timeout=60), target.url, target.token) for _ in range(4)]
    for session in kept:  # opened before the flood, for searches in flight at SIGTERM
        session.open()
    rows.append(measure(target, f"d. {plan.sessions:,} session inits", lambda: session_flood(target, plan.sessions)))
    rows.append(measure(target, "d. after the flood, 5 s", lambda: _quiet(5.0)))
    rows.append(measure(target, f"e. {plan.slow} slow + {plan.silent} silent", lambda: slow_and_silent(target, plan)))
    rows.append(measure(target, "f. SIGTERM under load", lambda: sigterm_under_load(target, plan, kept)))
    for session in kept:
        session.close()
    return rows


def _until_ready(target: Target) -> str:
    seconds = wait_for(lambda: memory_ready(target.env), 600, "the save taken in and embedded", every=1.0)
    return f"the saved note's passages and insights had their vectors {seconds:.0f} s after the save was answered"


def _quiet(seconds: float) -> str:
    time.sleep(seconds)
    return "nothing sent"


# --- printing ------------------------------------------------------------------------


def _counts(counter: Counter[int] | Counter[str]) -> str:
    return ", ".join(f"{key} ×{count:,}" for key, count in sorted(counter.items(), key=lambda kv: -kv[1])) or "none"


def _spread(seconds: list[float], expected: int) -> str:
    """Say when the server closed held connections: at once (room made for newer ones), or later."""
    if not seconds:
        return "none closed"
    at_once = [s for s in seconds if s < 1.0]
    later = [s for s in seconds if s >= 1.0]
    parts = [f"{len(at_once)} closed at once to make room"] if at_once else []
    if later:
        parts.append(f"{len(later)} after {percentile(later, 50):.1f} s (p50), {max(later):.1f} s (last)")
    left = expected - len(seconds)
    return ", ".join(parts) + (f", {left} still open" if left else "")


def log_warnings(log_path: Path) -> list[str]:
    """Count the daemon log's warnings and errors by message, numbers and ids left out."""
    kinds: Counter[str] = Counter()
    for line in log_path.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split(" ", 4)
        if len(parts) == 5 and parts[2] in ("WARNING", "ERROR"):
            kinds[re.sub(r"[0-9a-f]{32}|\d+(\.\d+)?", "N", parts[4])[:110]] += 1
    return [f"  ×{count:,}  {message}" for message, count in kinds.most_common(8)]


def print_table(rows: list[Row], plan: Plan, rss_before: float) -> None:
    print(f"\nAttacks on a running daemon over HTTP ({machine_line()})")
    print(f"{plan.documents} notes embedded with use-m3; daemon RSS before the attacks {rss_before:.0f} MB")
    print("agent: one MCP session (handshake) calling search_memory every ~100 ms; its figures are for calls")
    print("started during each attack\n")
    print(f"{'attack':<38} {'wall':>8} {'peak RSS':>9}   agent search latency and errors")
    for row in rows:
        print(f"{row.attack:<38} {row.seconds:7.1f}s {row.peak_mb:6.0f} MB   {row.agent.shown()}")
        print(f"    -> {row.outcome}")
        for kind, count in row.agent.kinds.most_common(3):
            print(f"    agent error ×{count}: {kind}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer notes, refused requests and sessions")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs, database)")
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    target = start_target(plan)
    try:
        target.agent.start()
        target.agent.wait_answered(60)
        with RssSampler(target.pid) as before:
            time.sleep(0.3)
        rows = run_attacks(target, plan)
        target.agent.stop()
        other = another_home(target)
        print_table(rows, plan, before.peak_mb)
        print(f"\nthe agent opened {target.agent.sessions} session(s) in all")
        print("the daemon's log, warnings and errors by kind:", *log_warnings(target.log_path), sep="\n")
        print("\n" + "\n".join(other))
    finally:
        target.agent.stop()
        stop_daemon(target.process)
        if args.keep:
            print(f"kept {ROOT}", file=sys.stderr)
        else:
            shutil.rmtree(ROOT, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
