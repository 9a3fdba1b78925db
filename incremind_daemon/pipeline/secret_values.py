"""What a credential's value looks like, and what only stands in for one.

Shared by the ways ``redact`` finds credentials: by their format
(``secret_formats``), by what names them (``secret_names``) and by the user
they go with (``secret_pairs``). A value is read to the end of its token:
up to whitespace, a quote or a closing bracket it did not open; a comma or
semicolon ends it only before a space or the next ``name=``, ``&`` only where
a query string goes on (``&page=2``), and only ``.`` and ``:`` at its end are
taken for the sentence's punctuation. So ``Hunter2Xyz!``, ``Tr0ub4dor&3``
and ``Pa(ss)w0rd`` are replaced whole, and ``Password=abc;Host=db`` keeps its
host.
"""

from __future__ import annotations

import logging
import re
from typing import NamedTuple

log = logging.getLogger(__name__)

MARKER_PREFIX = "[REDACTED:"
LONGEST_VALUE = 4096  # characters of an assigned value that are examined

# Priorities decide the kind of overlapping spans: a key format beats a slot beats a name.
FORMAT, SLOT, NAME = 3, 2, 1


class Finding(NamedTuple):
    start: int  # character offsets into the text that was searched
    end: int
    kind: str
    priority: int


# fmt: off
_PLACEHOLDER_WORDS = frozenset({
    "password", "passwd", "pass", "pwd", "secret", "token", "apikey", "api_key", "none", "null",
    "nil", "undefined", "true", "false", "redacted", "placeholder", "example", "changeit",
    "string", "str",
})
# fmt: on
_PLACEHOLDER_CHARS = frozenset("*xX.•·…-_#?")
_MASK_CHARS = _PLACEHOLDER_CHARS | frozenset("/: ")
_CREDENTIAL_STEM = re.compile(r"pass|pwd|secret|token|cred|key")
_NAME_LIKE = re.compile(r"[A-Za-z][A-Za-z_.-]*")
_SEPARATED_WORDS = re.compile(r"[a-z]+(?:[_.-][a-z]+)+")  # "fal-ai-api-key", "secret_value"
_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
# get_pass(), keys[0], b64encode(x).decode(), current_token().native_token, nth-child(1); not "Hunter(2)Xyz!"
_CALL = re.compile(
    r"[A-Za-z_][A-Za-z0-9_.-]*(?:\([^()\s]*\)|\[[^\[\]\s]*\])(?:\.[A-Za-z_][A-Za-z0-9_]*|\([^()\s]*\)|\[[^\[\]\s]*\])*"
)
_TYPE_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*(?:Key|Keys|Token|Tokens|Secret|Secrets|Password|Credentials|Type|Types)")
QUOTES = {'"': '"', "'": "'", "`": "`", "“": "”", "「": "」", "‘": "’"}
# ASCII only (a CJK run is prose, not a password) and bounded, so scanning stays linear.
_VALUE_CHARS = "".join(char for char in map(chr, range(33, 127)) if char not in "\"'`,;&<>(){}[]\\")
_BARE_VALUE = re.compile(f"(?:[{re.escape(_VALUE_CHARS)}]|&(?![A-Za-z_][A-Za-z0-9_.-]*=)){{1,{LONGEST_VALUE}}}+")
_OPENERS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_LONGEST_REST = 256  # characters past a value's usual end looked at: a password is short
_TOKEN_BREAK = re.compile(r"[\s\"'`]")
_NEXT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*=")  # "abc,user=x": the next assignment
_VARIABLE = re.compile(r"\$[{(A-Za-z_]")  # ${PASSWORD}, $TOKEN, $(cat file); not "$2b$12$..."
WORDISH = re.compile(r"[A-Za-z_][A-Za-z_.-]*")
_SYMBOLS = frozenset("!@#$%^&*+=?~|")
# Shapes that ordinary text is full of and no stated secret takes.
_NOT_SECRET = re.compile(
    r"[0-9.,:/+-]+"  # 1500, 2024-05-01, 08:30, 3/4
    r"|[A-Za-z]*[-_]?v?[0-9]+(?:\.[0-9]+)+(?:[-+.][A-Za-z0-9.]+)*"  # v1.2.3, python3.11, 2.3.0+cu121
    r"|(?:~|\.{1,2})?/\S*|[A-Za-z]:\\\S*|\\\\\S*"  # /etc/hosts, ~/x, ./x, C:\Users, \\server
    r"|[a-z0-9_.-]+(?:/[a-z0-9_.-]+)+/?"  # src/auth/token_store.py
    r"|[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]*\.[A-Za-z]{1,5}"  # Sources/App/Login.swift
    r"|[a-z0-9-]+(?:\.[a-z0-9-]+)+"  # auth.example.com
    r"|[A-Za-z][A-Za-z0-9+.-]*://\S*|www\.\S*"  # addresses
    r"|\S*\.(?:py|pyi|js|mjs|ts|tsx|jsx|md|txt|rst|json|ya?ml|toml|cfg|ini|conf|sh|go|rs|c|h|cc|cpp|hpp|java|kt|rb"
    r"|php|html?|css|scss|log|csv|xml|sql|lock|zip|tar|gz|tgz|png|jpe?g|gif|svg|pdf|docx?|xlsx?|exe|dll|so)"  # test*.py
)
_WORD_THEN_NUMBER = re.compile(r"[A-Za-z]+[-_]?[0-9]+")  # sha256, ed25519, x86, hunter22
# Encodings and algorithms a key or token is described by: "the token is base64url", "HS256-signed".
_ALGORITHM = re.compile(
    r"(?:base(?:32|64)(?:url)?|utf-?(?:8|16)|sha-?[0-9]+|md5|[hre]s[0-9]{3}|ed[0-9]+|x[0-9]+|aes-?[0-9]+\S*"
    r"|rsa-?[0-9]+|pbkdf2\S*|argon2\w*|crc[0-9]+\w*|hmac\S*|oauth[0-9.]*|http[0-9.]*|ipv[46])"
    r"|[A-Za-z0-9]+-(?:[a-z]+ed|[a-z]+ing|based|like|specific|only|compatible|safe|aware|style|bit)",
    re.IGNORECASE,
)


def value_at(text: str, position: int) -> tuple[int, int, bool] | None:
    """Return the value that starts at position: its span and whether it was quoted."""
    if position >= len(text):
        return None
    opening = text[position]
    if opening in QUOTES:
        closing = text.find(QUOTES[opening], position + 1, position + 2 + LONGEST_VALUE)
        if closing < 0 or "\n" in text[position + 1 : closing]:
            return None
        return position + 1, closing, True
    match = _BARE_VALUE.match(text, position)
    if match is None:
        return None
    end = _rest_of_token(text, position, match.end())
    while end > position and text[end - 1] in ".:":  # the sentence ends, not the password
        end -= 1
    return (position, end, False) if end > position else None


def _rest_of_token(text: str, position: int, end: int) -> int:
    """Take in what a password holds though a value usually stops there: "Pa(ss)w0rd", "Hun,ter2", "a\\b".

    A bracket is taken with its closing one in the same token; a comma or
    semicolon only inside the token and not before the next ``name=``, so
    ``Password=abc;Host=db`` and "the password is abc, then" stop where they did.
    """
    limit = min(len(text), position + LONGEST_VALUE, end + _LONGEST_REST)
    while end < limit:
        char = text[end]
        if char in _OPENERS:
            stop = _TOKEN_BREAK.search(text, end, limit)
            closing = text.find(_OPENERS[char], end + 1, stop.start() if stop else limit)
            if closing < 0:
                break
            end = closing + 1
        elif char in ",;":
            following = text[end + 1 : end + 2]
            if not following or following not in _VALUE_CHARS or _NEXT_NAME.match(text, end + 1):
                break
            end += 1
        elif char == "\\":
            end += 1
        else:
            break
        more = _BARE_VALUE.match(text, end, limit)
        end = end if more is None else more.end()
    return end


def is_placeholder(value: str) -> bool:
    """Tell whether value only stands in for a credential: ``<key>``, ``****``.

    Also ``${TOKEN}``, ``your_key_here`` and a prefix shown alone (``hf_...``).
    """
    stripped = value.strip()
    lowered = stripped.lower()
    return (
        not stripped
        or MARKER_PREFIX in stripped
        or stripped[0] in "<%{"
        or _VARIABLE.match(stripped) is not None
        or set(stripped) <= _PLACEHOLDER_CHARS
        or (set(stripped) <= _MASK_CHARS and "*" in stripped)  # "****/**/**", ":****"
        or lowered in _PLACEHOLDER_WORDS
        or lowered.startswith(("your", "my_", "my-"))
        or lowered.endswith(("_here", "-here", "...", "…", "***"))  # "sk-...", "hf_***": a prefix shown
    )


def is_quoted_secret(value: str, *, kind: str, quote: str) -> bool:
    """Tell whether a quoted value beside a credential's name is a credential.

    ``"[PAD]"``, ``"#d8dee9"``, ``"expired_token"``, ``"challengePassword"`` and
    ``` `get_token()` ``` are what code puts beside words like token or password;
    only a password holds spaces or other scripts (``"correct horse battery"``).
    """
    if is_placeholder(value) or not any(char.isalnum() for char in value):
        return False
    if _NAME_LIKE.fullmatch(value) and _CREDENTIAL_STEM.search(value.lower()):
        return False  # "X-Xet-Access-Token", "client_secret_post", "privateKeyUsagePeriod"
    if _COLOUR.fullmatch(value) or (value[0] == "[" and value[-1] == "]") or (quote == "`" and "(" in value):
        return False
    if kind == "password":
        return True
    return value.isascii() and not any(char.isspace() for char in value) and not _SEPARATED_WORDS.fullmatch(value)


def is_code_reference(value: str) -> bool:
    """Tell whether an unquoted value is a name or call: ``jinja2.pass_context``."""
    return _DOTTED_NAME.fullmatch(value) is not None or _CALL.fullmatch(value) is not None


def is_type_name(value: str) -> bool:
    """Tell whether an unquoted value names a type: ``Ed25519PrivateKey``."""
    return _TYPE_NAME.fullmatch(value) is not None


def is_secret_shaped(value: str, *, kind: str, strict: bool) -> bool:
    """Tell whether an unquoted value stated in words looks like a credential rather than prose.

    ``strict`` is for the weakest contexts (a key word with no separator, a
    ``user / password`` pair): the value must then look made up, by its
    mixed case, a symbol or its length, not like ``sha256`` or ``hunter22``.
    """
    if not value.isascii() or is_placeholder(value) or WORDISH.fullmatch(value):
        return False
    if not strict and value.isdigit():
        # "the password is 20240501", "api_key is 12345678"; a shorter run of digits is a count ("token count is 4096")
        return len(value) >= (6 if kind == "password" else 8)
    if _NOT_SECRET.fullmatch(value) or _ALGORITHM.fullmatch(value) or _CALL.fullmatch(value):
        return False
    has_letter = any(char.isalpha() for char in value)
    has_digit = any(char.isdigit() for char in value)
    has_symbol = any(char in _SYMBOLS for char in value)
    if not has_letter or not (has_digit or has_symbol):
        return False
    if not strict:
        return len(value) >= 6
    if len(value) >= 16:
        return True
    mixed_case = value.lower() != value and value.upper() != value
    return len(value) >= 8 and (has_symbol or (mixed_case and has_digit)) and not _WORD_THEN_NUMBER.fullmatch(value)


def is_word_char(char: str) -> bool:
    return char.isascii() and char.isalnum()


def skip_spaces(text: str, position: int) -> int:
    """Return the first position at or after position not a space or tab."""
    while position < len(text) and text[position] in " \t\u3000":
        position += 1
    return position
