"""How fast credentials are found and replaced (pipeline.redact) on a megabyte of mixed text.

``redact`` runs on every dropped file, every transcript message and every
context block, so its speed is paid on the worker for everything taken in.
Run from the repository root:

    PYTHONPATH=. python benchmarks/redact.py [--megabytes 1] [--rounds 5]

The text is seeded and deterministic: the generated notes of ``corpus.py``
(Chinese, English and code-switching), code and configuration (assignments,
paths, git SHAs, UUIDs, versions, URLs), JSON log lines, and one made-up
credential about every 20 KB. Each shape is timed best of ``--rounds``:

- whole: the text in one call, as a dropped file;
- messages: the same text in 2,000-character pieces, one call each, as
  transcript messages;
- invisible: the text with a zero-width or joiner character every 400
  characters (emoji sequences, pasted web text), which takes the slower path;
- adversarial shapes of the same size: one unbroken token, a key word repeated,
  "密码" repeated, and "a / b" pairs, to show the time stays linear.

To compare with another version, put that version's package first on the
path: ``PYTHONPATH=/tmp/before:. python benchmarks/redact.py``. Figures are
printed, never asserted.
"""

from __future__ import annotations

from benchmarks.isolation import isolate_home

BENCH_ROOT = isolate_home("incremind-redact-")  # before incremind_daemon is imported

import argparse  # noqa: E402
import functools  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

from benchmarks.corpus import generate_documents  # noqa: E402
from benchmarks.figures import MB, Report, render_table  # noqa: E402
from incremind_daemon.pipeline import redact as redact_module  # noqa: E402

CODE_LINES = (
    "max_tokens = {n}",
    "password_min_length = {n}",
    "token = get_token()",
    'api_key = os.environ["API_KEY"]',
    "def check_password(user: User, password: str) -> bool:",
    'if not password: raise ValueError("password is required")',
    "commit {sha} fixes the token refresh race",
    "request_id = {uuid}",
    "path = /home/dev/projects/app-{n}/src/auth/token_store.py",
    "C:\\Users\\dev\\AppData\\Local\\app-{n}\\config.json",
    "requires python>=3.11, numpy==1.26.{n}, torch 2.3.0+cu121",
    "GET https://api.example.com/v1/users/{n}?page=2&per_page=50 -> 200",
    "the token budget is {n} per request; the password field is validated on blur",
    "密码长度至少 8 位，令牌有效期 {n} 秒",
    '{{"level": "info", "ts": "2024-05-01T12:00:{n:02d}Z", "msg": "token refreshed", "user_id": {n}}}',
    "docker run -e POSTGRES_PASSWORD=$POSTGRES_PASSWORD -p 5432:5432 postgres:16",
    "sha256: {sha}{sha_tail}",
)
SECRETS = (
    "npm_q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm8Ae",
    "export OPENAI_API_KEY=sk-proj-Xq81nBv2LmTz4RwYp0KsJd7Hf3Gc9Ae5",
    "the aws secret for prod is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "数据库口令 Tr0ub4dor&3",
    "admin / S3cretPassw0rd!",
    "ghp_R4nd0mT0k3nV4lu3\u200bXq81nBv2LmTz4RwYp0Ks",
    "密码：Hunter2Xyz!",
    "SG.q8Vt2mLx7Rz4Ny9Kp1Ws6J.d3Hf0Gb5Cm8Ae2BxR7q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0G",
)
PIECE_CHARS = 2_000
INVISIBLE = ("\u200b", "\u200d", "\ufeff", "\u2060")


def mixed_text(megabytes: float, seed: int = 7) -> str:
    """Return about megabytes of UTF-8 of notes, code, logs and a credential every 20 KB."""
    rng = random.Random(seed)
    target = int(megabytes * MB)
    documents = iter(generate_documents(2_000, seed=seed))
    parts: list[str] = []
    size = since_secret = 0
    while size < target:
        if rng.random() < 0.5:
            part = next(documents).text
        else:
            part = "\n".join(
                rng.choice(CODE_LINES).format(
                    n=rng.randint(0, 59), sha=f"{rng.getrandbits(160):040x}", sha_tail=f"{rng.getrandbits(96):024x}",
                    uuid=f"{rng.getrandbits(128):032x}",
                )
                for _ in range(rng.randint(5, 30))
            )  # fmt: skip
        if since_secret > 20_000:
            part += f"\n{rng.choice(SECRETS)}\n"
            since_secret = 0
        parts.append(part)
        grown = len(part.encode("utf-8")) + 2
        size += grown
        since_secret += grown
    return "\n\n".join(parts)


def with_invisible(text: str, seed: int = 8) -> str:
    rng = random.Random(seed)
    return "".join(text[at : at + 400] + rng.choice(INVISIBLE) for at in range(0, len(text), 400))


def adversarial(megabytes: float) -> dict[str, str]:
    size = int(megabytes * MB)
    return {
        "one unbroken token": ("aZ9" * size)[:size],
        "'password ' repeated": ("password " * size)[:size],
        "'密码' repeated": ("密码" * size)[: size // 3],
        "'a / b' pairs": ("admin / b " * size)[:size],
        "'the token is' repeated": ("the token is " * size)[:size],
    }


def best_seconds(run: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def measure(report: Report, megabytes: float, rounds: int) -> None:
    redact = redact_module.redact
    text = mixed_text(megabytes)
    size = len(text.encode("utf-8")) / MB
    pieces = [text[at : at + PIECE_CHARS] for at in range(0, len(text), PIECE_CHARS)]
    hidden = with_invisible(text)
    report.note(f"mixed text: {size:.2f} MB, {len(text):,} characters, {len(pieces):,} pieces")
    report.note(f"module: {redact_module.__file__}")
    for name, run in (
        ("whole", lambda: redact(text)),
        ("messages", lambda: [redact(piece) for piece in pieces]),
        ("invisible", lambda: redact(hidden)),
    ):
        seconds = best_seconds(run, rounds)
        report.add("mixed text", f"{name}: time", seconds * 1000, "ms")
        report.add("mixed text", f"{name}: throughput", size / seconds, "MB/s")
    for name, shape in adversarial(megabytes).items():
        seconds = best_seconds(functools.partial(redact, shape), max(1, rounds // 2))
        report.add("adversarial, same size", name, seconds * 1000, "ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--megabytes", type=float, default=1.0, help="size of the mixed text (default 1)")
    parser.add_argument("--rounds", type=int, default=5, help="timed runs per shape; the best is kept (default 5)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    report = Report()
    try:
        measure(report, args.megabytes, args.rounds)
    finally:
        print(render_table(report, "redact: credentials found and replaced"))
        if not args.keep:
            shutil.rmtree(BENCH_ROOT, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
