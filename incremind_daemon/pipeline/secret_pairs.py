"""Find the password of a user and password written as a pair: ``admin / S3cret!``, ``root:S3cret!``.

A pair is taken for a login only when the user is a usual account name
(``admin``, ``root``...) or the line speaks of logging in ("login",
"account", "账号", "登录"...), and only when the password looks made up
(``secret_values.is_secret_shaped`` with ``strict``): "read / write",
"client / server", ``postgres:16-alpine`` and ``10:30`` pass through.

Each rule starts from a cue the regex engine finds in C (a slash or a colon
before eight characters that hold no slash, a login word); the few places
found are then read in Python, each within a bounded window, so the time
stays linear in the text.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

from incremind_daemon.pipeline.secret_values import (
    NAME,
    Finding,
    is_secret_shaped,
    is_word_char,
    skip_spaces,
    value_at,
)

log = logging.getLogger(__name__)

# a slash before eight or more characters that hold no slash: most path slashes fail here, in C
_PAIR_SLASH = re.compile(r"/(?![/*])[ \t]*[^\s/]{8}")
_PAIR_USER = re.compile(r"(?<![A-Za-z0-9._@+/\\:-])(?P<user>[A-Za-z][A-Za-z0-9._@+-]{0,63})[ \t]*\Z")
# a colon glued to eight or more characters that hold no slash: "root:S3cret!", not "a: b" or "https://"
_PAIR_COLON = re.compile(r":[^\s/:]{8}")
_COLON_USER = re.compile(r"(?<![A-Za-z0-9._@+/\\:-])(?P<user>[A-Za-z][A-Za-z0-9._@+-]{0,63})\Z")
_WINDOW = 200  # characters before (or after) a pair in which a login word is looked for
# "aws-actions/configure-aws-credentials@e3dd6a4…", "actions/checkout@v4.1.7": a repository at a commit or a tag
_GIT_REF = re.compile(r"[a-z][a-z0-9._-]*@(?:[0-9a-f]{40}|[0-9a-f]{7,12}|v\d+(?:\.\d+){0,2})")
# fmt: off
_USUAL_USERS = frozenset({
    "admin", "administrator", "root", "user", "sa", "postgres", "guest", "test", "demo", "ubuntu", "ec2-user",
    "pi", "elastic", "oracle", "mysql", "operator", "superuser", "sysadmin", "sysdba", "system", "default",
    "deploy", "jenkins", "grafana", "minio", "rabbitmq", "webmaster", "ftp", "support",
})
_LOGIN_CUES = (
    "login", "log in", "logon", "sign in", "signin", "credential", "creds", "account", "username", "user name",
    "账号", "帳號", "账户", "帳戶", "用户名", "用戶名", "登录", "登錄", "登陆", "登入",
)
# "username:alice", "host:db01": a key and its value, not a user and a password
_KEY_WORDS = frozenset({
    "login", "logon", "user", "username", "account", "email", "mail", "host", "hostname", "server", "port",
    "url", "uri", "id", "name", "role", "scope", "region", "database", "db", "schema", "image", "tag", "branch",
    "password", "passwd", "pass", "pwd", "secret", "token", "key", "http", "https", "ssh", "ftp", "git",
})
# fmt: on


def find_pairs(text: str, lowered: str) -> Iterator[Finding]:
    """Yield the password of every user / password pair that reads as a login.

    ``lowered`` is ``text`` in lower case, character for character.
    """
    for slash in _PAIR_SLASH.finditer(text):
        found = _slash_pair_at(text, lowered, slash.start())
        if found is not None:
            yield found
    yield from _colon_pairs(text, lowered)


def _slash_pair_at(text: str, lowered: str, slash: int) -> Finding | None:
    """Read "admin / S3cretPassw0rd!" around the slash at ``slash``."""
    if slash == 0 or text[slash - 1] in "/:<*" or text.startswith(("/", "*"), slash + 1):
        return None  # an address, a comment or a closing tag
    value = value_at(text, skip_spaces(text, slash + 1))
    if value is None or value[2]:
        return None
    candidate = text[value[0] : value[1]]
    if "/" in candidate or _GIT_REF.fullmatch(candidate):
        return None
    if not is_secret_shaped(candidate, kind="password", strict=True):
        return None
    user = _PAIR_USER.search(text, max(0, slash - 80), slash)
    if user is None:
        return None
    line = lowered[max(0, slash - _WINDOW) : user.start()].rpartition("\n")[2]  # "username/…" is no cue
    spaced = text[slash - 1] in " \t" or text[slash + 1] in " \t"  # "test/test*.py" is a path
    usual = spaced and user.group("user").lower() in _USUAL_USERS
    if usual or any(cue in line for cue in _LOGIN_CUES):
        return Finding(value[0], value[1], "password", NAME)
    return None


def _colon_pairs(text: str, lowered: str) -> Iterator[Finding]:
    """Yield "root:S3cret!" for a usual account, "alice:S3cret!" near a login."""
    for colon in _PAIR_COLON.finditer(text):
        at = colon.start()
        if at > 0 and is_word_char(text[at - 1]):
            found = _colon_pair_at(text, lowered, at)
            if found is not None:
                yield found


def _colon_pair_at(text: str, lowered: str, colon: int) -> Finding | None:
    user = _COLON_USER.search(text, max(0, colon - 64), colon)
    if user is None or user.group("user").lower() in _KEY_WORDS:
        return None
    value = value_at(text, colon + 1)
    if value is None or value[2]:
        return None
    candidate = text[value[0] : value[1]]
    if "/" in candidate or not is_secret_shaped(candidate, kind="password", strict=True):
        return None
    if user.group("user").lower() not in _USUAL_USERS:
        before = lowered[max(0, user.start() - _WINDOW) : user.start()].rpartition("\n")[2]
        after = lowered[value[1] : value[1] + _WINDOW].partition("\n")[0]
        if not any(cue in before or cue in after for cue in _LOGIN_CUES):
            return None
    return Finding(value[0], value[1], "password", NAME)
