"""Find credentials in text and replace them with typed markers like ``[REDACTED:api_key]``.

Three kinds of evidence, strongest first: a known key format (``sk-ant-``, ``ghp_``,
``AKIA``, a JWT, a PEM private-key block); a credential slot (``Authorization: Bearer``,
the password of ``scheme://user:password@host``); and an assignment to a credential-named
key (``password = "..."``, ``API_TOKEN=...``, ``"secret": "..."``, ``密码：...``,
``令牌=...``). Assignments reject values that are placeholders (``<your password>``,
``${PASSWORD}``, ``****``), code references (``password = get_password()``) or prose
(``token: string``), and ignore keys that only describe a credential (``max_tokens``,
``token_count``, ``password_reset_url``).

``redact`` is idempotent: a marker is never a secret, and the text is redacted until it
stops changing.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SecretSpan:
    start: int  # character offsets into the text that was searched
    end: int
    kind: str


class _Finding(NamedTuple):
    start: int
    end: int
    kind: str
    priority: int


MARKER_PREFIX = "[REDACTED:"
_MAX_PASSES = 4
_LONGEST_VALUE = 4096  # characters of an assigned value that are examined

# Priorities decide the kind of overlapping spans: a key format beats a slot beats a name.
_FORMAT, _SLOT, _NAME = 3, 2, 1

_B = r"(?<![A-Za-z0-9])"  # a key starts at a word edge: "task-..." holds no "sk-" key
_KEY_FORMATS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("anthropic_key", re.compile(_B + r"sk-ant-[A-Za-z0-9_-]{20,}")),
    ("openai_key", re.compile(_B + r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}")),
    ("stripe_key", re.compile(_B + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("github_token", re.compile(_B + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("slack_token", re.compile(_B + r"xox[abeoprs]-[A-Za-z0-9-]{10,}")),
    ("aws_access_key_id", re.compile(_B + r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])")),
    ("google_api_key", re.compile(_B + r"AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])")),
    ("gitlab_token", re.compile(_B + r"glpat-[A-Za-z0-9_-]{20,}")),
    ("huggingface_token", re.compile(_B + r"hf_[A-Za-z0-9]{30,}")),
    ("jwt", re.compile(_B + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")),
)
_PEM_BEGIN = re.compile(r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY-----")
_PEM_END = re.compile(r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY-----")
# a cut-off block: the base64 and header lines that follow the BEGIN line
_PEM_BODY = re.compile(r"(?:\s*+(?:[A-Za-z0-9+/=]{16,}+|[A-Za-z-]++: [^\n]*+))*+")
# Generic "sk-" keys (OpenAI legacy, DeepSeek, OpenRouter...) need a digit to tell them from prose.
_GENERIC_SK = re.compile(_B + r"sk-[A-Za-z0-9_-]{20,}")

_AUTH_HEADER = re.compile(
    r"(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?(?P<scheme>(?i:bearer|basic|token))[ \t]+"
    r"(?P<secret>[A-Za-z0-9._~+/-]{8,}=*)"
)
_BEARER = re.compile(r"(?<![A-Za-z0-9])(?i:bearer)[ \t]+(?P<secret>[A-Za-z0-9._~+/-]{12,}=*)")
_URL_PASSWORD = re.compile(r"(?i)\b[a-z][a-z0-9+.-]{1,30}://(?P<user>[^\s:/@?#]*):(?P<secret>[^\s/@?#]+)@")

_NAME_KEY = re.compile(
    # possessive: a long identifier is read once, never re-split (no quadratic backtracking)
    r"(?<![A-Za-z0-9_.-])-*(?P<key>(?=[A-Za-z_])[A-Za-z0-9_.-]++)[\"']?"
    r"(?P<sep>[ \t]*(?::=|=>|==?|:|：)[ \t]*|[ \t]+is[ \t]+)"
)
_CJK_KEY = re.compile(
    r"(?P<key>密码|密碼|口令|令牌|密钥|密鑰|秘钥|秘鑰|私钥|私鑰)"
    r"(?P<sep>[ \t]*(?:[:：=]|是|为|為)[ \t]*[:：]?[ \t]*)"
)
_CJK_KINDS = {
    "密码": "password",
    "密碼": "password",
    "口令": "password",
    "令牌": "token",
    "私钥": "private_key",
    "私鑰": "private_key",
}

_KEY_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_PART_KINDS = {
    "password": "password",
    "passwd": "password",
    "pwd": "password",
    "pass": "password",
    "passphrase": "password",
    "passcode": "password",
    "secret": "secret",
    "secrets": "secret",
    "token": "token",
    "credential": "secret",
    "credentials": "secret",
    "creds": "secret",
    "apikey": "api_key",
}
_KEY_PAIRS = {("api", "key"): "api_key", ("access", "key"): "api_key", ("private", "key"): "private_key"}
# A last word like these makes the key describe a credential rather than hold one.
# fmt: off
_DESCRIPTIVE = frozenset({
    "length", "len", "count", "min", "max", "size", "limit", "limits", "budget", "type", "types",
    "field", "fields", "policy", "required", "enabled", "disabled", "reset", "expiry", "expires",
    "expiration", "ttl", "timeout", "url", "uri", "endpoint", "file", "path", "dir", "name",
    "names", "id", "ids", "usage", "env", "var", "header", "prompt", "label", "hint",
    "placeholder", "regex", "pattern", "format", "strength", "rule", "rules", "encoding",
    "algorithm", "version", "mode", "provider", "source", "store", "validation", "validator",
    "error", "errors", "input", "text", "message", "display", "class", "style", "flag", "option",
    "options", "param", "params", "tokens", "keys", "callback", "handler", "reader",
})
_PLACEHOLDER_WORDS = frozenset({
    "password", "passwd", "pass", "pwd", "secret", "token", "apikey", "api_key", "none", "null",
    "nil", "undefined", "true", "false", "redacted", "placeholder", "example", "changeit",
    "string", "str",
})
# fmt: on
_PLACEHOLDER_CHARS = frozenset("*xX.•·…-_#?")
_QUOTES = {'"': '"', "'": "'", "`": "`", "“": "”", "「": "」", "‘": "’"}
# ASCII only (a CJK run is prose, not a password) and bounded, so scanning stays linear.
_VALUE_CHARS = "".join(char for char in map(chr, range(33, 127)) if char not in "\"'`,;&<>(){}[]\\")
_BARE_VALUE = re.compile(f"[{re.escape(_VALUE_CHARS)}]{{1,{_LONGEST_VALUE}}}")
_WORDISH = re.compile(r"[A-Za-z_][A-Za-z_.-]*")
_VARIABLE = re.compile(r"\$[{(A-Za-z_]")  # ${PASSWORD}, $TOKEN, $(cat file); not "$2b$12$..."
_TYPE_THEN_VALUE = re.compile(r"[ \t]*=(?!=)[ \t]*")


def redact(text: str) -> str:
    """Replace every credential found in ``text`` with ``[REDACTED:<kind>]``."""
    for _ in range(_MAX_PASSES):
        spans = find_secrets(text)
        if not spans:
            return text
        text = _replace(text, spans)
    return text


def redact_between(text: str, cuts: Iterable[int]) -> tuple[str, dict[int, int]]:
    """Redact each piece of text between consecutive cuts on its own; return the text and where each cut moved.

    Offsets that other records keep into the text (page starts, quoted evidence) are passed as
    cuts, so each lands exactly where its piece now starts. 0 and ``len(text)`` are always cuts;
    cuts outside the text are ignored.
    """
    ordered = sorted({0, len(text), *(cut for cut in cuts if 0 <= cut <= len(text))})
    parts: list[str] = []
    moved = {0: 0}
    at = 0
    for start, end in itertools.pairwise(ordered):
        piece = redact(text[start:end])
        parts.append(piece)
        at += len(piece)
        moved[end] = at
    return "".join(parts), moved


def find_secrets(text: str) -> list[SecretSpan]:
    """Locate credentials; overlapping findings are merged into one span."""
    found = [*_key_formats(text), *_slots(text), *_named_values(text)]
    return _merge(found)


def _replace(text: str, spans: list[SecretSpan]) -> str:
    pieces, position = [], 0
    for span in spans:
        pieces.append(text[position : span.start])
        pieces.append(f"{MARKER_PREFIX}{span.kind}]")
        position = span.end
    pieces.append(text[position:])
    return "".join(pieces)


def _key_formats(text: str) -> Iterator[_Finding]:
    yield from _private_keys(text)
    for kind, pattern in _KEY_FORMATS:
        for match in pattern.finditer(text):
            yield _Finding(match.start(), match.end(), kind, _FORMAT)
    for match in _GENERIC_SK.finditer(text):
        if any(char.isdigit() for char in match.group()):
            yield _Finding(match.start(), match.end(), "api_key", _FORMAT)


def _private_keys(text: str) -> Iterator[_Finding]:
    covered, end_missing = 0, False
    for begin in _PEM_BEGIN.finditer(text):
        if begin.start() < covered:
            continue
        end = None if end_missing else _PEM_END.search(text, begin.end())
        end_missing = end is None  # no END after this BEGIN means none after later ones either
        if end is not None:
            covered = end.end()
        else:
            body = _PEM_BODY.match(text, begin.end())
            covered = body.end() if body is not None else begin.end()
        yield _Finding(begin.start(), covered, "private_key", _FORMAT)


def _slots(text: str) -> Iterator[_Finding]:
    for match in _AUTH_HEADER.finditer(text):
        kind = "basic_auth" if match.group("scheme").lower() == "basic" else "bearer_token"
        yield _Finding(match.start("secret"), match.end("secret"), kind, _SLOT)
    for match in _BEARER.finditer(text):
        token = match.group("secret")
        if any(char.isdigit() for char in token) or len(token) >= 24:
            yield _Finding(match.start("secret"), match.end("secret"), "bearer_token", _SLOT)
    for match in _URL_PASSWORD.finditer(text):
        if not _is_placeholder(match.group("secret")):
            yield _Finding(match.start("secret"), match.end("secret"), "password", _SLOT)


def _named_values(text: str) -> Iterator[_Finding]:
    covered = 0  # a key inside a value already taken is part of that value
    for match in _NAME_KEY.finditer(text):
        key, separator = match.group("key"), match.group("sep")
        kind = _key_kind(key) if match.start() >= covered else None
        if kind is None:
            continue
        literal = key.isupper() and separator == "="  # API_TOKEN=abc in a shell or .env file
        value = _accepted_value(text, match.end(), kind, code_like=not literal)
        if value is not None:
            covered = value[1]
            yield _Finding(value[0], value[1], kind, _NAME)
    covered = 0
    for match in _CJK_KEY.finditer(text):
        kind = _CJK_KINDS.get(match.group("key"), "secret")
        value = _accepted_value(text, match.end(), kind, code_like=False) if match.start() >= covered else None
        if value is not None:
            covered = value[1]
            yield _Finding(value[0], value[1], kind, _NAME)


def _key_kind(key: str) -> str | None:
    parts = [part.lower() for part in _KEY_PART.findall(key)]
    if not parts or parts[-1] in _DESCRIPTIVE:
        return None
    if "aws" in parts and "secret" in parts:
        return "aws_secret_access_key"
    for pair in itertools.pairwise(parts):
        if pair in _KEY_PAIRS:
            return _KEY_PAIRS[pair]
    return next((_PART_KINDS[part] for part in parts if part in _PART_KINDS), None)


def _accepted_value(
    text: str, position: int, kind: str, *, code_like: bool, annotated: bool = False
) -> tuple[int, int] | None:
    value = _value_at(text, position)
    if value is None:
        return None
    start, end, quoted = value
    candidate = text[start:end]
    if code_like and not quoted and _WORDISH.fullmatch(candidate):
        # "password: str = 'x'" annotates first; "token = get_token()" and prose are references.
        follow = None if annotated else _TYPE_THEN_VALUE.match(text, end)
        if follow is None:
            return None
        return _accepted_value(text, follow.end(), kind, code_like=True, annotated=True)
    if _is_placeholder(candidate) or (not quoted and not candidate.isascii()):
        return None
    shortest = 1 if quoted else (3 if kind == "password" else 6)
    return (start, end) if len(candidate) >= shortest else None


def _value_at(text: str, position: int) -> tuple[int, int, bool] | None:
    if position >= len(text):
        return None
    opening = text[position]
    if opening in _QUOTES:
        closing = text.find(_QUOTES[opening], position + 1, position + 2 + _LONGEST_VALUE)
        if closing < 0 or "\n" in text[position + 1 : closing]:
            return None
        return position + 1, closing, True
    match = _BARE_VALUE.match(text, position)
    if match is None:
        return None
    end = match.end()
    while end > position and text[end - 1] in ".:!?":  # the sentence ends, not the password
        end -= 1
    return (position, end, False) if end > position else None


def _is_placeholder(value: str) -> bool:
    stripped = value.strip()
    lowered = stripped.lower()
    return (
        not stripped
        or MARKER_PREFIX in stripped
        or stripped[0] in "<%{"
        or _VARIABLE.match(stripped) is not None
        or set(stripped) <= _PLACEHOLDER_CHARS
        or lowered in _PLACEHOLDER_WORDS
        or lowered.startswith(("your", "my_", "my-"))
        or lowered.endswith(("_here", "-here"))
    )


def _merge(found: list[_Finding]) -> list[SecretSpan]:
    merged: list[_Finding] = []
    for finding in sorted(found, key=lambda item: (item.start, -item.end)):
        if merged and finding.start < merged[-1].end:
            last = merged[-1]
            stronger = finding if finding.priority > last.priority else last
            merged[-1] = _Finding(last.start, max(last.end, finding.end), stronger.kind, stronger.priority)
        else:
            merged.append(finding)
    return [SecretSpan(finding.start, finding.end, finding.kind) for finding in merged]
