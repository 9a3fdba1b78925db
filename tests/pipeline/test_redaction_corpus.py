"""Redaction over the labelled corpus: every credential replaced whole, every ordinary text untouched, fast."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

from incremind_daemon.pipeline.redact import MARKER_PREFIX, find_secrets, redact
from tests.pipeline.redaction_corpus import NEGATIVES, POSITIVES, Negative, Positive

MARKER = re.compile(r"\[REDACTED:\w+\]")
INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2060-\u2064\ufeff\u3164]")


def replaced_exactly(positive: Positive) -> bool:
    """Tell whether one marker took the credential's place and everything around it stayed as it was."""
    redacted = redact(positive.text)
    return MARKER.sub("\0", redacted) == positive.text.replace(positive.secret, "\0", 1)


def leaked(positive: Positive) -> list[str]:
    """Return each four characters of the credential still shown that the words around it do not hold."""
    around = INVISIBLE.sub("", positive.text.replace(positive.secret, " "))
    shown = INVISIBLE.sub("", MARKER.sub(" ", redact(positive.text)))
    secret = INVISIBLE.sub("", positive.secret)
    return sorted({secret[at : at + 4] for at in range(len(secret) - 3)} & _pieces(shown) - _pieces(around))


def _pieces(text: str) -> set[str]:
    return {text[at : at + 4] for at in range(len(text) - 3)}


@pytest.mark.parametrize("positive", POSITIVES, ids=[p.case for p in POSITIVES])
def test_every_credential_of_the_corpus_is_replaced_whole_and_alone(positive: Positive) -> None:
    assert positive.secret in positive.text
    assert leaked(positive) == []
    assert replaced_exactly(positive), redact(positive.text)
    assert redact(redact(positive.text)) == redact(positive.text)


@pytest.mark.parametrize("negative", NEGATIVES, ids=[n.case for n in NEGATIVES])
def test_every_ordinary_text_of_the_corpus_comes_through_unchanged(negative: Negative) -> None:
    assert find_secrets(negative.text) == []
    assert redact(negative.text) == negative.text


def test_precision_and_recall_on_the_corpus_are_both_one() -> None:
    found = sum(1 for p in POSITIVES if MARKER_PREFIX in redact(p.text) and not leaked(p))
    false_alarms = sum(1 for n in NEGATIVES if redact(n.text) != n.text)

    assert len(POSITIVES) >= 100 and len(NEGATIVES) >= 75
    assert (found / (found + false_alarms), found / len(POSITIVES)) == (1.0, 1.0)


def test_the_corpus_speaks_both_languages_and_mixes_them() -> None:
    texts = [p.text for p in POSITIVES] + [n.text for n in NEGATIVES]
    chinese = [t for t in texts if re.search("[\u4e00-\u9fff]", t)]
    mixed = [t for t in chinese if re.search("[A-Za-z]{3}", t)]

    assert len(chinese) >= 40 and len(mixed) >= 20 and len(texts) - len(chinese) >= 100


# Shapes that make a backtracking pattern or a rescanning loop take quadratic time or worse,
# 256 KB each; redacting one takes well under half a second when the time stays linear.
PATHOLOGICAL = """
import json, sys, time
from incremind_daemon.pipeline.redact import redact
N = 256 * 1024
shapes = {
    "one unbroken token": "aZ9" * (N // 3),
    "a key word repeated": "password " * (N // 9),
    "a Chinese key repeated": "密码" * (N // 2),
    "a key and a separator repeated": "password = '" * (N // 12),
    "a Chinese key and its colon repeated": "密码：" * (N // 3),
    "a statement repeated": "the token is " * (N // 13),
    "words between a key and its verb": "the password " + "word " * (N // 5) + "is S3cret!",
    "slash pairs": "admin / b " * (N // 10),
    "colon pairs near a login word": "login " + "ab:cdefghijk " * (N // 13),
    "usual users and colons": "admin:x" * (N // 7),
    "a long identifier before '='": "a" * N + "=",
    "a long key": "password" + "_x" * (N // 2) + "=1",
    "a key prefix and no end": "sk-" + "a" * N,
    "JWT starts": "eyJabcdefghij." * (N // 14),
    "BEGIN lines and one END": "-----BEGIN RSA PRIVATE KEY-----\\n" * (N // 32) + "-----END RSA PRIVATE KEY-----",
    "mysql options": "mysql" + " -pX" * (N // 4),
    "SQL IDENTIFIED BY": "user identified by '" * (N // 20),
    "invisible characters between letters": "\\u200b".join("password is x") * (N // 25),
    "quotes": '"' * N,
    "a quoted name of letters and dashes": 'token = "' + "a-" * (N // 2) + '1"',
    "quoted runs of letters": ('token = "' + "a" * 40 + '1" ') * (N // 52),
    "open brackets in values": "password=a(" * (N // 11),
    "commas in values": "密码：a," * (N // 5),
    "Telegram-like runs": ("123456789:" + "A" * 35 + "x") * (N // 46),
}
times = {}
for name, text in shapes.items():
    started = time.perf_counter()
    redact(text)
    times[name] = time.perf_counter() - started
print(json.dumps(times))
"""


def test_pathological_inputs_are_redacted_in_linear_time() -> None:
    # a child process, so a regex that backtracks without end is stopped by the timeout
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PATHOLOGICAL)], capture_output=True, text=True, timeout=120, check=True
    )
    times: dict[str, float] = json.loads(done.stdout)

    slow = {name: round(seconds, 2) for name, seconds in times.items() if seconds > 3.0}
    assert slow == {}, f"redaction took more than 3 s on 256 KB of: {slow}"
