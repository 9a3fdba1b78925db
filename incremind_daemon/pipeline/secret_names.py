"""Find credentials by what names them, in code and in words, in English and Chinese.

- An assignment to a credential-named key: ``password = "..."``, ``API_TOKEN=...``,
  ``"secret": "..."``, ``token 是 ...``, ``密码：...``, ``令牌=...``. Code
  references (``password = get_password()``) and type annotations are not values.
- A statement in words: "the aws secret for prod is ...", "my GitHub token is
  now ...", "the password was changed to ...", "数据库口令 ...", "密码改成了 ...".
  Up to four words may stand between the credential word and its verb, none of
  them one that makes the phrase about something else ("the token *budget* is
  1500", "密码*长度*为 8").
- A password word and a value that looks made up, with nothing between:
  "username admin password S3cret!", ``--password S3cret!``, ``PASSWORD 'S3cret!'``.

Values found by context alone must be shaped like a secret
(``secret_values.is_secret_shaped``), and a quoted one must not read as a
name (``"[PAD]"``, ``"expired_token"``, ``"#d8dee9"``), so prose and code pass
through. Each rule starts from a cue that a literal search finds (a
credential word, a Chinese key); everything else is done at those few places
only. User and password pairs are read in ``secret_pairs``.
"""

from __future__ import annotations

import functools
import itertools
import logging
import re
import string
from collections.abc import Iterator

from incremind_daemon.pipeline.secret_values import (
    NAME,
    WORDISH,
    Finding,
    is_code_reference,
    is_placeholder,
    is_quoted_secret,
    is_secret_shaped,
    is_type_name,
    skip_spaces,
    value_at,
)

log = logging.getLogger(__name__)

_STEM = re.compile(r"pass|pwd|secret|token|cred|key")
_IDENT_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")
_IDENT = re.compile(r"[A-Za-z0-9_.-]*")
_LONGEST_KEY = 128
_NAME_KEY = re.compile(
    # possessive: a long identifier is read once, never re-split (no quadratic backtracking)
    r"(?<![A-Za-z0-9_.-])-*(?P<key>(?=[A-Za-z_])[A-Za-z0-9_.-]++)[\"']?"
    r"(?P<sep>[ \t]*(?::=|=>|==?|:|：)[ \t]*|[ \t]*(?:是|为|為)[ \t]*[:：]?[ \t]*)"
)
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
_KEY_PAIRS = {
    ("api", "key"): "api_key",
    ("access", "key"): "api_key",
    ("account", "key"): "api_key",
    ("subscription", "key"): "api_key",
    ("private", "key"): "private_key",
}
# nginx's proxy_pass and its kin name an address
_NOT_CREDENTIAL = frozenset(
    (server, "pass") for server in ("proxy", "fastcgi", "uwsgi", "scgi", "grpc", "memcached", "first", "second")
)
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
    "options", "param", "params", "tokens", "keys", "callback", "handler", "reader", "state", "status",
    "prefix", "suffix", "entries", "number", "method", "period", "button", "icon",
})
# Between a credential word and its verb, these make the phrase about something else.
_OFF_TOPIC = _DESCRIPTIVE | frozenset({
    "hash", "hashes", "hashing", "hashed", "salt", "manager", "vault", "rotation",
    "complexity", "requirements", "check", "checks", "test", "tests", "logic", "flow", "fix", "commit",
    "bug", "issue", "ticket", "branch", "table", "column", "cache", "generator", "generation", "scanner",
    "bucket", "window", "rate", "price", "cost", "costs", "number", "numbers", "per", "bytes", "chars",
    "characters", "bits", "lifetime", "scope", "scopes", "audience", "issuer", "claims", "payload",
    "signature", "storage", "request", "response", "not", "never", "if", "when", "whether",
})
_CJK_OFF_TOPIC = (
    "长度", "長度", "强度", "強度", "规则", "規則", "策略", "字段", "格式", "位数", "位數", "复杂度", "複雜度",
    "有效期", "过期", "過期", "数量", "數量", "上限", "下限", "预算", "預算", "类型", "類型", "哈希", "算法",
    "文件", "路径", "路徑", "名称", "名稱", "提示", "输入框", "輸入框", "错误", "錯誤", "加密", "校验", "校驗",
    "验证", "驗證", "重置", "找回", "生成", "管理", "桶", "对", "對", "容量", "大小", "个数", "個數", "次数",
    "次數", "时间", "時間", "时长", "時長", "方式", "模式", "字符", "位置", "接口", "参数", "參數", "不",
)
# fmt: on
_TYPE_THEN_VALUE = re.compile(r"[ \t]*=(?!=)[ \t]*")
_NAME_THEN_BRACKET = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*[(\[]")  # a call or a subscript, in code

# "the aws secret for prod is ...", on the lowered text after the credential word
_STATED = re.compile(
    r"(?P<between>(?:[ \t]+[^\s.,;:!?=，。；：！？\"'`]{1,40}){0,4}?)"
    r"(?:[ \t]*[:=][ \t]*"
    r"|[ \t]+(?:is|was|are|were|will[ \t]+be|would[ \t]+be|should[ \t]+be|has[ \t]+been|had[ \t]+been|becomes|equals)"
    r"(?:[ \t]+(?:now|still|currently|just|simply|actually|always|also))?"
    r"(?:[ \t]+(?:set|changed|updated|reset|rotated)[ \t]+to)?[ \t]+"
    r"|[ \t]+(?:(?:was|has[ \t]+been|is|got)[ \t]+)?(?:set|changed|updated|reset|rotated|switched)[ \t]+to[ \t]+"
    # "the db password changed, its Ledg3rly!2026 now": the news, then the value in a clause of its own
    r"|[ \t]*[,;]?[ \t]*(?:[-\u2013\u2014][ \t]*)?(?:it['\u2019]?s|it[ \t]+is|(?:the[ \t]+)?new[ \t]+one[ \t]+is|now)"
    r"(?:[ \t]+now)?[ \t]*:?[ \t]+)"
)
_PASSWORD_WORDS = frozenset({"password", "passwd", "passphrase", "passcode"})
_MADE_UP_AHEAD = re.compile(r"[ \t]+['\"]?[^\s'\"]*?[0-9!#$%&*+=?@^|~]")
_PREVIOUS_WORDS = re.compile(r"[a-z0-9]+")
_LOWER_WORD = re.compile(r"[a-z]+")

_CJK_KEY = re.compile(r"密码|密碼|口令|令牌|密钥|密鑰|秘钥|秘鑰|私钥|私鑰")
_CJK_KINDS = {
    "密码": "password",
    "密碼": "password",
    "口令": "password",
    "令牌": "token",
    "私钥": "private_key",
    "私鑰": "private_key",
}
_CJK_SEPARATOR = re.compile(
    r"(?P<between>[^\x00-\x7f\s，。；：！？、“”‘’「」（）]{0,6}?)"
    r"[ \t\u3000]*(?:[:：=]|是|为|為|改成了?|改为|改為|换成了?|換成了?|设为|設為|设置为|設置為|设成|設成)"
    r"[ \t\u3000]*[:：]?[ \t\u3000]*"
)


def find_named(text: str, lowered: str) -> Iterator[Finding]:
    """Yield every credential named by a key or stated in words.

    ``lowered`` is ``text`` in lower case, character for character.
    """
    yield from _assignments_and_statements(text, lowered)
    yield from _chinese_keys(text)


def _assignments_and_statements(text: str, lowered: str) -> Iterator[Finding]:
    covered = 0  # a key inside a value already taken is part of that value
    last_start = -1
    for stem in _STEM.finditer(lowered):
        start = stem.start()
        floor = max(0, start - _LONGEST_KEY)
        while start > floor and text[start - 1] in _IDENT_CHARS:
            start -= 1
        if start == last_start or start < covered:
            continue
        last_start = start
        key = text[start : _ident_end(text, start)]
        kind = _key_kind(key)
        if kind is not None:
            match = _NAME_KEY.match(text, start)
            literal = match is not None and key.isupper() and match.group("sep") == "="  # API_TOKEN=abc in .env
            value = None if match is None else _assigned_value(text, match.end(), kind, code_like=not literal)
            if value is not None and match is not None and match.group("sep").strip() == "==":
                value = value if _is_stated(text, value, kind, strict=False) else None  # token == "lambda"
            if value is not None and text[value[0] : value[1]].isdigit() and _is_bare_pass(key):
                value = None  # "pass: 120, fail: 3" counts tests
            if value is not None:
                covered = value[1]
                yield Finding(value[0], value[1], kind, NAME)
                continue
        elif key.lower() != "key":  # "API key" is named by the word before
            continue
        stated = _stated_value(text, lowered, start, start + len(key), kind)
        if stated is None and kind == "password":
            stated = _unseparated_password(text, key, start + len(key))
        if stated is not None:
            covered = stated.end
            yield stated


@functools.lru_cache(maxsize=4096)
def _key_kind(key: str) -> str | None:
    # "Token.Keyword", "credential.helper": only the last dotted name says what the key holds
    parts = [part.lower() for part in _KEY_PART.findall(key.rpartition(".")[2] or key)]
    if (
        not parts
        or parts[-1] in _DESCRIPTIVE
        or "public" in parts  # publicKeyToken, public_key
        or any(pair in _NOT_CREDENTIAL for pair in itertools.pairwise(parts))
    ):
        return None
    if "aws" in parts and "secret" in parts:
        return "aws_secret_access_key"
    for pair in itertools.pairwise(parts):
        if pair in _KEY_PAIRS:
            return _KEY_PAIRS[pair]
    # "pass" names a password at the end of a key (DB_PASS), a verb before (pass_context, pass_through)
    named = (part for at, part in enumerate(parts) if part != "pass" or at == len(parts) - 1)
    return next((_PART_KINDS[part] for part in named if part in _PART_KINDS), None)


@functools.lru_cache(maxsize=1024)
def _ends_in_password_word(key: str) -> bool:
    parts = _KEY_PART.findall(key)
    return bool(parts) and parts[-1].lower() in _PASSWORD_WORDS


@functools.lru_cache(maxsize=1024)
def _is_bare_pass(key: str) -> bool:
    parts = {part.lower() for part in _KEY_PART.findall(key)}
    return "pass" in parts and not parts & {"password", "passwd", "pwd", "passphrase", "passcode"}


def _assigned_value(
    text: str, position: int, kind: str, *, code_like: bool, annotated: bool = False
) -> tuple[int, int] | None:
    value = value_at(text, position)
    if value is None:
        return None
    start, end, quoted = value
    candidate = text[start:end]
    if quoted:
        return (start, end) if is_quoted_secret(candidate, kind=kind, quote=text[start - 1]) else None
    if code_like and (_NAME_THEN_BRACKET.match(text, start) or is_code_reference(candidate)):
        return None  # "creds = base64.b64encode(...)", "key = keys[0]", "x = jinja2.pass_context"
    if code_like and (WORDISH.fullmatch(candidate) or is_type_name(candidate)):
        # "password: str = 'x'" annotates first; "token = get_token()" and prose are references.
        follow = None if annotated else _TYPE_THEN_VALUE.match(text, end)
        if follow is None:
            return None
        return _assigned_value(text, follow.end(), kind, code_like=True, annotated=True)
    if is_placeholder(candidate) or not candidate.isascii() or candidate.startswith("//"):
        return None  # "//host/…" is the rest of an address ("credential.https://…")
    shortest = 3 if kind == "password" else 8  # a token is long: "every token: use-m3 took 2 GB" is prose
    return (start, end) if len(candidate) >= shortest else None


def _stated_value(text: str, lowered: str, start: int, end: int, own: str | None) -> Finding | None:
    """Read "<credential words> <up to four words> is <value>" from the key word at start..end."""
    while end > start and text[end - 1] in ".-":
        end -= 1
    stated = _STATED.match(lowered, end)
    if stated is None or _is_bare_pass(text[start:end]):  # "pass an adjusted context: …" is a verb
        return None
    separator = lowered[stated.end("between") : stated.end()].strip()
    if own is not None and not stated.group("between") and separator[:1] in (":", "="):
        return None  # "token = b64encode(...)" was read as an assignment, and refused
    line = lowered[max(0, start - 40) : start].rpartition("\n")[2]
    words = _PREVIOUS_WORDS.findall(line)[-2:]
    kind = (_key_kind(" ".join([*words, text[start:end]])) if words else None) or own  # "API key", "aws secret"
    if kind is None:
        return None
    between = stated.group("between").split()
    if any(word.strip("()") in _OFF_TOPIC for word in between):
        return None
    if between and "=" in lowered[stated.end("between") : stated.end()]:
        return None  # "secret generic db --from-literal=…": the "=" is the last word's, in code
    value = value_at(text, stated.end())
    if value is None:
        return None
    candidate = text[value[0] : value[1]]
    if value[2]:
        accepted = is_quoted_secret(candidate, kind=kind, quote=text[value[0] - 1]) and (
            is_secret_shaped(candidate, kind=kind, strict=False)
            if kind != "password"  # "the last token was 'FROM'"
            else not _LOWER_WORD.fullmatch(candidate)  # 'expired'
        )
    else:
        accepted = is_secret_shaped(candidate, kind=kind, strict=False)
    return Finding(value[0], value[1], kind, NAME) if accepted else None


def _unseparated_password(text: str, key: str, end: int) -> Finding | None:
    """Read "username admin password S3cret!": no separator, a made-up value."""
    # the usual case, the next word of the sentence, is refused by one match: no digit or symbol in it
    if _MADE_UP_AHEAD.match(text, end) is None or not _ends_in_password_word(key):
        return None
    value = value_at(text, skip_spaces(text, end))
    if value is None:
        return None
    candidate = text[value[0] : value[1]]
    first = _LOWER_WORD.match(candidate)
    if first is not None and first.group() in _OFF_TOPIC:
        return None  # "password manager|vault|…"
    if value[2]:  # ALTER ROLE app PASSWORD 'S3cret!'
        accepted = not is_placeholder(candidate) and not _LOWER_WORD.fullmatch(candidate) and " " not in candidate
    else:
        accepted = is_secret_shaped(candidate, kind="password", strict=True)
    return Finding(value[0], value[1], "password", NAME) if accepted else None


def _chinese_keys(text: str) -> Iterator[Finding]:
    covered = 0
    for match in _CJK_KEY.finditer(text):
        if match.start() < covered:
            continue
        kind = _CJK_KINDS.get(match.group(), "secret")
        found = _chinese_value(text, match.end(), kind)
        if found is not None:
            covered = found[1]
            yield Finding(found[0], found[1], kind, NAME)


def _chinese_value(text: str, position: int, kind: str) -> tuple[int, int] | None:
    separated = _CJK_SEPARATOR.match(text, position)
    if separated is None:
        # "数据库口令 Tr0ub4dor&3": no separator, so only a value that looks made up
        value = value_at(text, skip_spaces(text, position))
        if value is None or not _is_stated(text, (value[0], value[1]), kind, strict=True):
            return None
        return value[0], value[1]
    between = separated.group("between")
    if any(word in between for word in _CJK_OFF_TOPIC):
        return None
    found = _assigned_value(text, separated.end(), kind, code_like=False)
    if found is not None and between and not _is_stated(text, found, kind, strict=False):
        return None  # "密码现在是 X" says less than "密码：X"
    return found


def _is_stated(text: str, value: tuple[int, int], kind: str, *, strict: bool) -> bool:
    return is_secret_shaped(text[value[0] : value[1]], kind=kind, strict=strict)


def _ident_end(text: str, position: int) -> int:
    match = _IDENT.match(text, position)
    return match.end() if match is not None else position
