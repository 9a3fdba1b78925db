"""Find credentials in text and replace them with typed markers like ``[REDACTED:api_key]``.

Three kinds of evidence, strongest first: a known key format (``sk-ant-``, ``ghp_``,
``npm_``, ``pypi-AgE``, ``SG.``, a Telegram bot token, a JWT, a PEM private-key
block; see ``secret_formats``); a credential slot (``Authorization: Bearer``, the
password of ``scheme://user:password@host``); and what names a value, in code or
in words, in English or Chinese (``password = "..."``, ``密码：...``, "the aws
secret for prod is ...", "数据库口令 ..."; see ``secret_names``), or pairs it with a
user where a login is meant (``admin / ...``, "login: alice:..."; see ``secret_pairs``).

Credentials are looked for with zero-width and other invisible characters
taken out (a token split by U+200B is still found) and with odd spaces read as
spaces; the offsets of ``find_secrets`` are into the text as given, and a span
covers the invisible characters inside it, so nothing of a secret is left
beside its marker. Invisible characters elsewhere are kept.

``redact`` is idempotent: a marker is never a secret, and the text is redacted until it
stops changing. ``redact_text`` also tells where offsets that other records keep into
the text (page starts, quoted evidence) move to.
"""

from __future__ import annotations

import bisect
import logging
import re
import sys
from dataclasses import dataclass

from incremind_daemon.pipeline.secret_formats import find_formats, find_slots
from incremind_daemon.pipeline.secret_names import find_named
from incremind_daemon.pipeline.secret_pairs import find_pairs
from incremind_daemon.pipeline.secret_values import MARKER_PREFIX, Finding

__all__ = ["MARKER_PREFIX", "RULES_VERSION", "Redaction", "SecretSpan", "find_secrets", "redact", "redact_text"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SecretSpan:
    start: int  # character offsets into the text that was searched
    end: int
    kind: str


# The version of the rules: raise it when they find what they did not before, and the text
# stored under earlier rules is redacted once more at the next start (pipeline.redact_stored).
RULES_VERSION = 5
_MAX_PASSES = 4
# Format characters (zero-width space and joiners, direction marks, the BOM, soft hyphen,
# tag characters), Hangul fillers and variation selectors: they show as nothing.
_INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff"
)
_ODD_SPACES = "\u00a0\u1680\u2000-\u200a\u202f\u205f"
_UNUSUAL = re.compile(f"[{_INVISIBLE}{_ODD_SPACES}]")
_INVISIBLE_RUN = re.compile(f"[{_INVISIBLE}]+")
_ODD_SPACE = re.compile(f"[{_ODD_SPACES}]")


@dataclass(frozen=True, slots=True)
class Redaction:
    """A text with its credentials replaced, and how offsets move into it."""

    text: str
    # per pass, (start, end) of each replaced span and where its marker now starts and ends
    passes: tuple[tuple[tuple[int, int, int, int], ...], ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.passes)

    def moved(self, offset: int, *, closing: bool = False) -> int:
        """Return where an offset into the text as it was lands in ``text``.

        An offset inside a credential lands on its marker: at the marker's
        start, or at its end when the offset closes a span (a quote's end),
        so a span that held part of a secret holds the whole marker.
        """
        for spans in self.passes:
            at = bisect.bisect_right(spans, (offset, sys.maxsize)) - 1
            if at < 0:
                continue
            start, end, new_start, new_end = spans[at]
            if offset >= end:
                offset = new_end + offset - end
            elif offset > start:
                offset = new_end if closing else new_start
            else:
                offset = new_start
        return offset


def redact(text: str) -> str:
    """Replace every credential found in ``text`` with ``[REDACTED:<kind>]``."""
    return redact_text(text).text


def redact_text(text: str) -> Redaction:
    """Replace every credential in ``text``; the result also moves offsets."""
    passes: list[tuple[tuple[int, int, int, int], ...]] = []
    for _ in range(_MAX_PASSES):
        spans = find_secrets(text)
        if not spans:
            break
        text, replaced = _replace(text, spans)
        passes.append(replaced)
    return Redaction(text, tuple(passes))


def find_secrets(text: str) -> list[SecretSpan]:
    """Locate credentials; overlapping findings are merged into one span."""
    if text.isascii() or _UNUSUAL.search(text) is None:
        return _merge(_findings(text))
    visible, removed = _without_invisible(text)
    return [_to_original(span, removed) for span in _merge(_findings(visible))]


def _findings(text: str) -> list[Finding]:
    lowered = text.lower()
    if len(lowered) != len(text):  # "İ" lowers to two characters; only ASCII case matters here
        lowered = text.encode("latin-1", "replace").decode("latin-1").lower()
    return [*find_formats(text), *find_slots(text, lowered), *find_named(text, lowered), *find_pairs(text, lowered)]


def _without_invisible(text: str) -> tuple[str, list[tuple[int, int]]]:
    """Return text with invisible characters taken out and odd spaces made spaces, and what was taken.

    Each taken run is (where it sat in the returned text, characters taken up to and including it).
    """
    pieces: list[str] = []
    removed: list[tuple[int, int]] = []
    position = taken = 0
    for run in _INVISIBLE_RUN.finditer(text):
        pieces.append(text[position : run.start()])
        taken += run.end() - run.start()
        removed.append((run.start() - (taken - (run.end() - run.start())), taken))
        position = run.end()
    pieces.append(text[position:])
    return _ODD_SPACE.sub(" ", "".join(pieces)), removed


def _to_original(span: SecretSpan, removed: list[tuple[int, int]]) -> SecretSpan:
    """Move a span found in the visible text back onto the text as given."""
    starts = [at for at, _ in removed]

    def original(index: int) -> int:  # where the visible character at index sits in the text as given
        before = bisect.bisect_right(starts, index)
        return index + (removed[before - 1][1] if before else 0)

    return SecretSpan(original(span.start), original(span.end - 1) + 1, span.kind)


def _replace(text: str, spans: list[SecretSpan]) -> tuple[str, tuple[tuple[int, int, int, int], ...]]:
    pieces: list[str] = []
    replaced: list[tuple[int, int, int, int]] = []
    position = length = 0
    for span in spans:
        pieces.append(text[position : span.start])
        length += span.start - position
        marker = f"{MARKER_PREFIX}{span.kind}]"
        pieces.append(marker)
        replaced.append((span.start, span.end, length, length + len(marker)))
        length += len(marker)
        position = span.end
    pieces.append(text[position:])
    return "".join(pieces), tuple(replaced)


def _merge(found: list[Finding]) -> list[SecretSpan]:
    merged: list[Finding] = []
    for finding in sorted(found, key=lambda item: (item.start, -item.end)):
        if merged and finding.start < merged[-1].end:
            last = merged[-1]
            stronger = finding if finding.priority > last.priority else last
            merged[-1] = Finding(last.start, max(last.end, finding.end), stronger.kind, stronger.priority)
        else:
            merged.append(finding)
    return [SecretSpan(finding.start, finding.end, finding.kind) for finding in merged]
