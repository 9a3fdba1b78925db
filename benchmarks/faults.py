"""Fault script: SIGKILLs during mixed work, hostile input, and the environment failing around the daemon.

Run from the repository root as a module (``benchmarks/mcp.py`` would shadow the
``mcp`` package for a script run by path); about ten minutes:

    PYTHONPATH=. python -m benchmarks.faults [--kills 20] [--seed 8] [--only kill|corpus|env]

Every daemon runs as a real ``python -m incremind_daemon run`` process with
HOME and INCREMIND_HOME inside a fresh temporary folder. Figures are printed,
never asserted; a "lost" or "duplicated" figure above 0 is a bug.
"""

from __future__ import annotations

from benchmarks.isolation import isolate_home

BENCH_ROOT = isolate_home("incremind-faults-")  # before apsw, jieba and incremind_daemon are imported

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import anyio  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402

from benchmarks.processes import REPO, wait_for  # noqa: E402
from incremind_daemon.store.db import connect  # noqa: E402
from tests.bad_files import failed_name, write_hostile_inbox, write_hostile_transcripts  # noqa: E402
from tests.transcripts import ClaudeLog  # noqa: E402

NOBODY = 65534
STARTED: list[subprocess.Popen[bytes]] = []  # every daemon this script started, stopped at the end whatever happens


@dataclass
class Home:
    """One scenario's HOME, with the incremind home inside it."""

    root: Path
    extra_env: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=lambda: free_port())

    @property
    def incremind(self) -> Path:
        return self.root / ".incremind"

    @property
    def inbox(self) -> Path:
        return self.incremind / "inbox"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("INCREMIND_")}
        env.update(
            HOME=str(self.root),
            INCREMIND_HOME=str(self.incremind),
            INCREMIND_EMBEDDING__BACKEND="none",
            INCREMIND_INBOX__SETTLE_SECONDS="0.2",
            INCREMIND_INBOX__RESCAN_SECONDS="1",
            INCREMIND_SESSIONS__RESCAN_SECONDS="1",
            INCREMIND_MCP__PORT=str(self.port),
            PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        )
        env.update(self.extra_env)
        return env

    def start(self, *, user: int | None = None) -> subprocess.Popen[bytes]:
        """Start a daemon and wait for its first heartbeat."""
        status = self.incremind / "status.json"
        status.unlink(missing_ok=True)
        command = [sys.executable, "-m", "incremind_daemon", "run"]
        if user is not None:
            command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *command]
        process = subprocess.Popen(command, env=self.env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        STARTED.append(process)
        wait_for(lambda: status.exists() or process.poll() is not None, 120, "first heartbeat")
        return process

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "incremind_daemon", *args],
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=300,
        )

    def status(self) -> dict[str, object]:
        """The status as `incremind status --json` prints it ({} when it printed nothing)."""
        answer = self.cli("status", "--json")
        try:
            report: dict[str, object] = json.loads(answer.stdout)
        except json.JSONDecodeError:
            return {}
        return report

    def count(self, words: str) -> int:
        """Count sources whose text holds words."""
        db = self.incremind / "memory.db"
        if not db.exists():
            return 0
        conn = connect(db, readonly=True)
        try:
            row = conn.execute("SELECT count(*) FROM sources WHERE instr(raw_text, ?) > 0", (words,)).fetchone()
            return int(row[0])
        finally:
            conn.close()

    def occurrences(self, words: str) -> int:
        """Count how often words occur in all stored text (a duplicated message shows twice)."""
        db = self.incremind / "memory.db"
        conn = connect(db, readonly=True)
        try:
            rows = conn.execute("SELECT raw_text FROM sources WHERE instr(raw_text, ?) > 0", (words,)).fetchall()
        finally:
            conn.close()
        return sum(str(text).count(words) for (text,) in rows)


def new_home(name: str, **extra_env: str) -> Home:
    root = BENCH_ROOT / name
    (root / ".incremind").mkdir(parents=True)
    return Home(root, dict(extra_env))


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> int:
    if process.poll() is None:
        process.send_signal(sig)
    try:
        return process.wait(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()


def table(title: str, rows: list[tuple[str, str]]) -> None:
    width = max(len(label) for label, _ in rows)
    print(f"\n{title}")
    for label, value in rows:
        print(f"  {label:<{width}}  {value}")


# --- 1. kill test ---------------------------------------------------------------------


@dataclass
class Producer:
    """Drop inbox files and append transcript turns until stopped; remember every marker."""

    home: Home
    rng: random.Random
    files: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    saves: list[str] = field(default_factory=list)  # acknowledged by the daemon
    unacknowledged: list[str] = field(default_factory=list)  # sent, but the daemon died before answering
    mcp_url: str = ""
    first_error: str = ""
    _stop: threading.Event = field(default_factory=threading.Event)

    def save_over_mcp(self) -> None:
        """Save notes through the daemon's MCP endpoint, one connection per save, until stopped."""
        number = 0
        while not self._stop.is_set():
            number += 1
            marker = f"Kiwisave{number:05d}"
            try:
                ok = anyio.run(self._save, f"{marker}: remember that note {number} matters")
            except Exception as exc:  # the daemon is down between a kill and its restart
                self.first_error = self.first_error or repr(exc)[:160]
                ok = None
            if ok:
                self.saves.append(marker)
            elif ok is None:
                self.unacknowledged.append(marker)
            self._stop.wait(self.rng.uniform(0.05, 0.2))

    async def _save(self, text: str) -> bool:
        token = (self.home.incremind / "token").read_text(encoding="ascii").strip()  # made at the first start
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        with anyio.fail_after(20):
            async with http, Client(streamable_http_client(self.mcp_url, http_client=http)) as client:
                result = await client.call_tool("save_memory", {"text": text, "project": "faults"})
        return not result.is_error

    def run(self) -> None:
        session = "aaaaaaaa-0000-4000-8000-000000000001"
        log = ClaudeLog(self.home.root / ".claude", session, str(self.home.root / "code"))
        number = 0
        while not self._stop.is_set():
            number += 1
            if number % 10 == 0:
                name = f"broken-{number:05d}.docx"
                (self.home.inbox / name).write_bytes(b"PK\x03\x04 not a zip " + str(number).encode())
                self.broken.append(name)
            else:
                marker = f"Kiwifile{number:05d}"
                text = f"# Note {number}\n\n{marker} is note number {number}. " * 8
                staging = self.home.root / f".drop-{number}.md"
                staging.write_text(text, encoding="utf-8")
                staging.rename(self.home.inbox / f"note-{number:05d}.md")  # arrives whole, as a move
                self.files.append(marker)
            marker = f"Kiwimsg{number:05d}"
            log.append(log.user(f"u{number}", f"{marker} asks question {number}"))
            self.messages.append(marker)
            self._stop.wait(self.rng.uniform(0.01, 0.08))

    def stop(self) -> None:
        self._stop.set()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def kill_test(kills: int, rng: random.Random) -> None:
    home = new_home("kill")
    home.inbox.mkdir(parents=True)
    producer = Producer(home, rng, mcp_url=f"http://127.0.0.1:{home.port}/mcp")
    thread = threading.Thread(target=producer.run, name="producer")
    saver = threading.Thread(target=producer.save_over_mcp, name="mcp-saver")
    process = home.start()
    thread.start()
    saver.start()
    killed = 0
    try:
        for _ in range(kills):
            time.sleep(rng.uniform(0.3, 2.5))
            stop(process, signal.SIGKILL)
            killed += 1
            process = home.start()
    finally:
        producer.stop()
        thread.join()
        saver.join()
    drained = wait_for(lambda: not any(p for p in home.inbox.iterdir() if p.name != ".failed"), 600, "inbox drained")
    transcript = next((home.root / ".claude" / "projects").rglob("*.jsonl"))
    wait_for(lambda: home.count(producer.messages[-1]) == 1, 300, "last transcript turn stored")
    exit_code = stop(process)

    stored_files = Counter(home.count(marker) for marker in producer.files)
    failed_dir = home.inbox / ".failed"
    failed = [n for n in producer.broken if (failed_dir / f"{n}.error.txt").exists()]
    lost_broken = [n for n in producer.broken if not (failed_dir / n).exists()]
    stored_messages = Counter(home.occurrences(marker) for marker in producer.messages)
    stored_saves = Counter(home.count(marker) for marker in producer.saves)
    unacknowledged = Counter(min(home.count(marker), 2) for marker in producer.unacknowledged)
    table(
        f"Kill test: {killed} SIGKILLs at random points during mixed work (inbox drops + transcript appends)",
        [
            ("inbox files submitted", f"{len(producer.files) + len(producer.broken)}"),
            ("  stored exactly once", f"{stored_files[1]}"),
            ("  failed with a reason", f"{len(failed)} (of {len(producer.broken)} broken files)"),
            ("  lost", f"{stored_files[0] + len(lost_broken)}"),
            ("  duplicated", f"{sum(v for k, v in stored_files.items() if k > 1)}"),
            ("transcript turns appended", f"{len(producer.messages)} ({transcript.stat().st_size:,} bytes)"),
            ("  stored exactly once", f"{stored_messages[1]}"),
            ("  lost", f"{stored_messages[0]}"),
            ("  duplicated", f"{sum(v for k, v in stored_messages.items() if k > 1)}"),
            ("MCP saves acknowledged", f"{len(producer.saves)}"),
            ("  stored exactly once", f"{stored_saves[1]}"),
            ("  lost", f"{stored_saves[0]}"),
            ("  duplicated", f"{sum(v for k, v in stored_saves.items() if k > 1)}"),
            (
                "MCP saves refused or cut off (daemon down)",
                f"{len(producer.unacknowledged)}: stored {unacknowledged[1]}, not stored {unacknowledged[0]}, "
                f"duplicated {unacknowledged[2]}",
            ),
            ("  first MCP error", producer.first_error or "none"),
            ("drain after the last restart", f"{drained:.1f} s; clean stop exit code {exit_code}"),
        ],
    )


# --- 2. the bad-input corpus ----------------------------------------------------------


def corpus_test() -> None:
    home = new_home("corpus", INCREMIND_INBOX__MAX_FILE_MB="2", INCREMIND_INBOX__EXTRACT_TIMEOUT_SECONDS="5")
    process = home.start()
    isolated = "IsolatedExtractor" in (REPO / "incremind_daemon" / "daemon.py").read_text(encoding="utf-8")
    outside = home.root / "outside"
    started = time.monotonic()
    inbox = write_hostile_inbox(home.inbox, outside, slow_pdf=isolated)
    transcripts = write_hostile_transcripts(home.root, outside / "agents", huge_line_mb=100)
    answers, problems = 0, 0

    def done() -> bool:
        nonlocal answers, problems
        report = home.status()  # status must keep answering while the daemon works through the corpus
        answers += 1
        problems += not report.get("daemon", {}).get("running")  # type: ignore[union-attr]
        return all(_settled(home, name, e.outcome, e.words, failed_name(name, e)) for name, e in inbox.items())

    try:
        elapsed = wait_for(done, 600, "corpus settled")
        wait_for(lambda: all(home.count(e.words) == 1 for e in transcripts.values() if e.outcome == "stored"), 120, "")
    except TimeoutError:
        elapsed = time.monotonic() - started
    alive = process.poll() is None
    stop(process)
    rows: list[tuple[str, str]] = []
    outcomes: Counter[str] = Counter()
    for name, expected in sorted(inbox.items()):
        got = _outcome(home, name, expected.words, failed_name(name, expected))
        outcomes[got] += 1
        mark = "ok" if got == expected.outcome else f"EXPECTED {expected.outcome}"
        rows.append((repr(name)[1:-1][:48], f"{got:<8} {mark}"))
    for label, expected in sorted(transcripts.items()):
        if expected.outcome == "stored":
            got = "stored" if home.count(expected.words) == 1 else "missing"
        else:
            got = "ignored" if not expected.words or home.count(expected.words) == 0 else "STORED"
        outcomes[got] += 1
        rows.append((f"transcript: {label}", f"{got:<8} {'ok' if got == expected.outcome else 'UNEXPECTED'}"))
    table(f"Bad-input corpus: {len(inbox)} inbox files + {len(transcripts)} transcripts", rows)
    table(
        "Corpus summary",
        [
            ("outcomes", ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))),
            ("nothing from outside stored", str(home.count("Wombat") == 0)),
            ("settled in", f"{elapsed:.1f} s"),
            ("status answers meanwhile", f"{answers}, {problems} said 'not running'"),
            ("daemon alive afterwards", str(alive)),
            ("slow PDF under a time limit", "yes" if isolated else "TODO: daemon.py does not use IsolatedExtractor"),
        ],
    )


def _outcome(home: Home, name: str, words: str, failed_as: str) -> str:
    note = os.fsencode(home.inbox / ".failed" / failed_as) + b".error.txt"
    if len(os.path.basename(note)) <= 255 and os.path.exists(note):
        return "failed"
    if words and home.count(words) == 1 and not os.path.lexists(home.inbox / name):
        return "stored"
    if os.path.lexists(home.inbox / name):
        return "ignored"
    return "lost"


def _settled(home: Home, name: str, outcome: str, words: str, failed_as: str) -> bool:
    got = _outcome(home, name, words, failed_as)
    return got == outcome or (outcome == "failed" and got == "ignored" and name == "dangling.md")


# --- 3. the environment failing ------------------------------------------------------


def locked_database() -> list[tuple[str, str]]:
    home = new_home("locked")
    process = home.start()
    db = home.incremind / "memory.db"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep(float(sys.argv[2]))\n"
            "c.execute('COMMIT')",
            str(db),
            "12",
        ],
        stdout=subprocess.PIPE,
    )
    assert holder.stdout is not None
    holder.stdout.readline()
    (home.inbox / "during-lock.md").write_text("Lockfile01 dropped while the database is locked", encoding="utf-8")
    time.sleep(8)
    during = home.status()
    errors = json.dumps(during.get("last_errors", {})) + str(during.get("daemon", {}).get("last_error"))  # type: ignore[union-attr]
    holder.wait()
    recovered = wait_for(lambda: home.count("Lockfile01") == 1, 120, "stored after the lock")
    stop(process)
    shown = "locked" in errors or "busy" in errors
    return [
        ("database locked 12 s by another process", f"stored {recovered:.1f} s after release, no restart"),
        ("  status during the lock", "shows the error" if shown else f"no error shown: {errors[:80]}"),
    ]


def inbox_recreated() -> list[tuple[str, str]]:
    home = new_home("recreated", INCREMIND_INBOX__RESCAN_SECONDS="3600")
    process = home.start()
    (home.inbox / "first.md").write_text("Recreate01 before", encoding="utf-8")
    wait_for(lambda: home.count("Recreate01") == 1, 60, "first")
    shutil.rmtree(home.inbox)
    home.inbox.mkdir(exist_ok=True)
    (home.inbox / "second.md").write_text("Recreate02 after the inbox was made again", encoding="utf-8")
    took = wait_for(lambda: home.count("Recreate02") == 1, 60, "second")
    stop(process)
    return [("inbox deleted and made again", f"new file stored in {took:.1f} s, no restart (rescans 1 h apart)")]


def corrupt_config() -> list[tuple[str, str]]:
    home = new_home("config")
    (home.incremind / "config.json").write_text('{\n  "inbox": {"max_file_mb": 5,\n}\n', encoding="utf-8")
    answer = home.cli("run")
    message = answer.stderr.strip().splitlines()[-1] if answer.stderr.strip() else "(nothing)"
    return [("corrupt config.json", f"exit {answer.returncode}: {message[:110]}")]


def unreadable_file() -> list[tuple[str, str]]:
    home = new_home("unreadable")
    user = None
    if os.geteuid() == 0:  # root reads any file: run the daemon as nobody so the mode means something
        if shutil.which("setpriv") is None:
            return [("unreadable file", "not tested: running as root without setpriv")]
        user = NOBODY
        BENCH_ROOT.chmod(0o711)  # mkdtemp made it private to root
        home.inbox.mkdir(parents=True)
        for folder in (home.root, *home.root.rglob("*")):
            os.chown(folder, NOBODY, NOBODY)
    process = home.start(user=user)
    path = home.inbox / "secret.md"
    path.write_text("Unreadable01", encoding="utf-8")
    path.chmod(0)
    note = home.inbox / ".failed" / "secret.md.error.txt"
    wait_for(note.exists, 60, "unreadable file failed")
    stop(process)
    reason = note.read_text(encoding="utf-8").strip()
    who = "as uid 65534 (setpriv)" if user else "as this user"
    return [("unreadable file (chmod 000)", f"failed with reason {who}: {reason[:90]}")]


def disk_full() -> list[tuple[str, str]]:
    root = BENCH_ROOT / "full"
    mount = root / "disk"
    mount.mkdir(parents=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)], capture_output=True)
    if mounted.returncode != 0:
        return [("disk full", "not tested: mounting a 64 MB tmpfs needs root (try RLIMIT_FSIZE via prlimit)")]
    try:
        home = Home(mount)
        home.incremind.mkdir(parents=True)
        process = home.start()
        staging = mount / "staging"
        staging.mkdir()
        for number in range(5):
            (staging / f"full-{number}.md").write_text(f"Fullfile0{number} written to a full disk " * 200)
        filler = mount / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            for block in (1 << 20, 4096, 1):  # fill to the last byte
                try:
                    while True:
                        os.write(fd, b"\0" * block)
                except OSError:
                    pass
        finally:
            os.close(fd)
        for path in staging.iterdir():
            path.rename(home.inbox / path.name)  # a rename needs no free space
        time.sleep(6)
        during = home.status()
        errors = json.dumps(during.get("last_errors", {})) + str(during.get("daemon", {}).get("last_error"))  # type: ignore[union-attr]
        waiting = sum(1 for p in home.inbox.glob("full-*.md"))
        alive = process.poll() is None
        filler.unlink()
        took = wait_for(lambda: all(home.count(f"Fullfile0{n}") == 1 for n in range(5)), 120, "stored after space")
        lost = 5 - sum(home.count(f"Fullfile0{n}") for n in range(5))
        stop(process)
        shown = "full" in errors.lower() or "space" in errors.lower()
        beat = str(during.get("daemon", {}).get("heartbeat_at"))  # type: ignore[union-attr]
        return [
            ("disk full (64 MB tmpfs filled up)", f"{waiting}/5 files waited in the inbox; daemon alive: {alive}"),
            (
                "  status while full",
                "shows the error"
                if shown
                else f"no disk error shown: status.json cannot be rewritten on a full disk (last beat {beat})",
            ),
            ("  after space was freed", f"all stored in {took:.1f} s without a restart; lost {lost}"),
        ]
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def guarded(scenario: Callable[[], list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """Run a scenario; a scenario that breaks is reported as a row, not a traceback."""
    try:
        return scenario()
    except Exception as exc:  # the script reports every failure and carries on
        return [(scenario.__name__.replace("_", " "), f"NOT SURVIVED: {exc!r}")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=20, help="SIGKILLs in the kill test")
    parser.add_argument("--seed", type=int, default=8, help="random seed for kill times")
    parser.add_argument("--only", choices=["kill", "corpus", "env"], help="run one part")
    args = parser.parse_args()
    print(f"incremind fault script; temporary home {BENCH_ROOT}")
    parts: dict[str, Callable[[], None]] = {
        "kill": lambda: kill_test(args.kills, random.Random(args.seed)),
        "corpus": corpus_test,
        "env": lambda: table(
            "The environment failing around a running daemon",
            [
                row
                for scenario in (locked_database, inbox_recreated, corrupt_config, unreadable_file, disk_full)
                for row in guarded(scenario)
            ],
        ),
    }
    try:
        for name, part in parts.items():
            if args.only in (None, name):
                part()
    finally:
        for process in STARTED:
            if process.poll() is None:
                stop(process, signal.SIGKILL)
        shutil.rmtree(BENCH_ROOT, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
