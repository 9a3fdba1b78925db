"""Find credentials by their format: known key prefixes, and the slots a credential sits in.

A key format (``npm_``, ``pypi-AgE``, ``SG.``, ``xoxb-``...) is evidence on its
own, and takes the rest of its token with it (``hf_…!``). A slot is a place
only a credential goes: ``Authorization: Bearer``, the password of
``scheme://user:password@host``, ``curl -u user:password``, ``mysql -pS3cret``,
``sshpass -p S3cret``, SQL's ``IDENTIFIED BY 'S3cret'``, the ``sig=`` of an
Azure shared access signature.

Every pattern starts with a literal, so the regex engine skips ahead to its
first character; the word edge before a key is checked here instead of with a
lookbehind, which would make the engine try every position (several times slower).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

from incremind_daemon.pipeline.secret_values import (
    FORMAT,
    SLOT,
    Finding,
    is_placeholder,
    is_secret_shaped,
    is_word_char,
    value_at,
)

log = logging.getLogger(__name__)

_KEY_FORMATS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("anthropic_key", r"sk-ant-[A-Za-z0-9_-]{20,}"),
        ("openai_key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}"),
        ("stripe_key", r"sk_(?:live|test)_[A-Za-z0-9]{16,}"),
        ("stripe_key", r"rk_(?:live|test)_[A-Za-z0-9]{16,}"),
        ("stripe_key", r"pk_live_[A-Za-z0-9]{16,}"),
        ("stripe_key", r"whsec_[A-Za-z0-9+/=]{24,}"),
        ("github_token", r"gh[pousr]_[A-Za-z0-9]{30,}"),
        ("github_token", r"github_pat_[A-Za-z0-9_]{22,}"),
        ("slack_token", r"xox[abeoprs]-[A-Za-z0-9-]{10,}"),
        ("slack_token", r"xoxe\.xox[bp]-[A-Za-z0-9-]{10,}"),
        ("slack_token", r"xapp-[0-9]-[A-Za-z0-9-]{10,}"),
        ("aws_access_key_id", r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        ("google_api_key", r"AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
        ("google_oauth_secret", r"GOCSPX-[A-Za-z0-9_-]{20,}"),
        ("google_oauth_token", r"ya29\.[A-Za-z0-9_-]{20,}"),
        ("google_oauth_token", r"1//0[A-Za-z0-9_-]{30,}"),
        ("gitlab_token", r"gl(?:pat|dt|ptt|rt|cbt|imt|ft|soat|oas|agent|ffct|wt)-[A-Za-z0-9_-]{20,}"),
        ("gitlab_token", r"GR1348941[A-Za-z0-9_-]{20,}"),
        ("huggingface_token", r"hf_[A-Za-z0-9]{30,}"),
        ("huggingface_token", r"api_org_[A-Za-z0-9]{30,}"),
        ("npm_token", r"npm_(?=[A-Za-z]{0,40}[0-9])[A-Za-z0-9]{30,}"),
        ("pypi_token", r"pypi-AgE[A-Za-z0-9_-]{16,}"),
        ("sendgrid_key", r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
        ("digitalocean_token", r"do[opr]_v1_[a-f0-9]{64}"),
        ("shopify_token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
        ("groq_key", r"gsk_[A-Za-z0-9]{40,}"),
        ("replicate_token", r"r8_[A-Za-z0-9]{30,}"),
        ("age_secret_key", r"AGE-SECRET-KEY-1[0-9A-Z]{50,}"),
        ("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    )
)
# What a key's match may stop short of though it is glued on ("hf_…!", "sk_live_…&3"): the
# rest of the token up to a space, quote, bracket, comma or the "&name=" of a query string.
_TOKEN_TAIL = re.compile(r"(?:[A-Za-z0-9!#$%+=?@^_|~-]|&(?![A-Za-z_][A-Za-z0-9_.-]*=))*+")
# Webhook addresses keep their host; the path is the secret.
_WEBHOOKS = (
    ("slack_webhook", re.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/-]{20,})")),
    ("discord_webhook", re.compile(r"discord(?:app)?\.com/api/webhooks/(?P<secret>[0-9]+/[A-Za-z0-9_-]{30,})")),
    (
        "feishu_webhook",
        re.compile(r"open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/(?P<secret>[A-Za-z0-9-]{16,})"),
    ),
    ("wecom_webhook", re.compile(r"qyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=(?P<secret>[A-Za-z0-9-]{16,})")),
    ("teams_webhook", re.compile(r"\.office\.com/webhook(?:b2)?/(?P<secret>[A-Za-z0-9@/_-]{40,})")),
    ("zapier_webhook", re.compile(r"hooks\.zapier\.com/hooks/catch/(?P<secret>[0-9]+/[A-Za-z0-9]+)")),
    ("ifttt_key", re.compile(r"maker\.ifttt\.com/(?:\S*?/)?key/(?P<secret>[A-Za-z0-9_-]{16,})")),
    # any other service's: in an address, the token after a /hook/ or /webhooks/ segment, letters and digits
    # mixed, not a file's name ("src/hooks/useOAuth2CallbackHandler.ts")
    (
        "webhook",
        re.compile(
            r"://[^\s/?#]+/(?:[^\s?#]*/)?(?:web)?hooks?/"
            r"(?P<secret>(?=[A-Za-z_-]*[0-9])(?=[0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_-]|\.[A-Za-z0-9])"
        ),
    ),
)
# Generic "sk-" keys (OpenAI legacy, DeepSeek, OpenRouter...) need a digit to tell them from prose.
_GENERIC_SK = re.compile(r"sk-[A-Za-z0-9_-]{20,}")
# A Telegram bot token: the bot's number, a colon, about 35 characters; found from its colon.
_TELEGRAM_SECRET = re.compile(r":[A-Za-z0-9_-]{30,40}(?![A-Za-z0-9_-])")
_TELEGRAM_BOT = re.compile(r"(?:^|(?<=[^A-Za-z0-9])|(?<=bot))[0-9]{6,12}\Z")
# A Microsoft Entra client secret: three characters, a digit, "Q~", 31 to 34 more; found from "Q~".
_AZURE_CLIENT_SECRET = re.compile(
    r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])"
)
_AZURE_SIGNATURE = re.compile(r"sig=(?P<secret>[A-Za-z0-9%+/=]{16,})")

_PEM_BEGIN = re.compile(r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY-----")
_PEM_KEY_LINE = re.compile(r"[A-Za-z0-9+/=]{16}")
_PEM_END = re.compile(r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY-----")
# a cut-off block: the base64 and header lines that follow the BEGIN line
_PEM_BODY = re.compile(r"(?:\s*+(?:[A-Za-z0-9+/=]{16,}+|[A-Za-z-]++: [^\n]*+))*+")

# These run on the lowered text, so each starts with a literal and still ignores case.
_AUTH_HEADER = re.compile(
    r"authorization[\"']?[ \t]*[:=][ \t]*[\"']?(?P<scheme>bearer|basic|token)[ \t]+(?P<secret>[a-z0-9._~+/-]{8,}=*)"
)
_BEARER = re.compile(r"bearer[ \t]+(?P<secret>[a-z0-9._~+/-]{12,}=*)")
_URL_USERINFO = re.compile(r"://(?P<user>[^\s:/@?#]*):(?P<secret>[^\s/@?#]+)@")
# "mysql -u root -pS3cret" (glued, as the client requires) and "sshpass -p S3cret ssh ..."
_DASH_P = re.compile(r"-p(?P<space>[ \t]+)?(?=[^\s-])")
_PASSWORD_TOOLS = ("mysql", "mariadb")  # mysql, mysqldump, mysqladmin, mariadb-dump ...
_SQL_IDENTIFIED = re.compile(r"identified[ \t]+(?:with[ \t]+[a-z0-9_]+[ \t]+)?by[ \t]+(?=['\"])")
_SQL_ACCOUNT = re.compile(r"\b(?:user|role|login)\b")
_CURL_USER = re.compile(r"(?:-u|--user)[ \t]*[ =][ \t]*[\"']?[^\s:\"'/]{1,64}:(?P<secret>[^\s\"']{1,256})")


def find_formats(text: str) -> Iterator[Finding]:
    """Yield every credential known by its format, as offsets into ``text``."""
    yield from _private_keys(text)
    for kind, pattern in _KEY_FORMATS:
        for match in _at_word_edge(pattern, text):
            yield Finding(match.start(), _token_end(text, match.end()), kind, FORMAT)
    for kind, pattern in _WEBHOOKS:
        for match in pattern.finditer(text):
            yield Finding(match.start("secret"), match.end("secret"), kind, FORMAT)
    for match in _at_word_edge(_GENERIC_SK, text):
        if any(char.isdigit() for char in match.group()):
            yield Finding(match.start(), _token_end(text, match.end()), "api_key", FORMAT)
    yield from _telegram_tokens(text)
    yield from _azure_client_secrets(text)


def find_slots(text: str, lowered: str) -> Iterator[Finding]:
    """Yield every credential in a slot only a credential fills; ``lowered`` is ``text`` in lower case."""
    for match in _AUTH_HEADER.finditer(lowered):
        kind = "basic_auth" if match.group("scheme") == "basic" else "bearer_token"
        yield Finding(match.start("secret"), match.end("secret"), kind, SLOT)
    for match in _at_word_edge(_BEARER, lowered):
        token = match.group("secret")
        if any(char.isdigit() for char in token) or len(token) >= 24:
            yield Finding(match.start("secret"), match.end("secret"), "bearer_token", SLOT)
    for match in _URL_USERINFO.finditer(text):
        if match.start() > 0 and is_word_char(text[match.start() - 1]) and not is_placeholder(match.group("secret")):
            yield Finding(match.start("secret"), match.end("secret"), "password", SLOT)
    for match in _at_word_edge(_CURL_USER, text):
        # docker's "-u 1000:1000" and "-u www-data:www-data" name a user and group
        if is_secret_shaped(match.group("secret"), kind="password", strict=False):
            yield Finding(match.start("secret"), match.end("secret"), "password", SLOT)
    yield from _password_options(text, lowered)
    for match in _SQL_IDENTIFIED.finditer(lowered):  # CREATE USER bob IDENTIFIED BY 'S3cret!'
        line = lowered[max(0, match.start() - 200) : match.start()].rpartition("\n")[2]
        if _SQL_ACCOUNT.search(line) is None:  # "a library identified by 'name'"
            continue
        value = value_at(text, match.end())
        if value is not None and not is_placeholder(text[value[0] : value[1]]):
            yield Finding(value[0], value[1], "password", SLOT)
    for match in _AZURE_SIGNATURE.finditer(text):
        if match.start() > 0 and text[match.start() - 1] in "?&;":
            yield Finding(match.start("secret"), match.end("secret"), "azure_sas_signature", SLOT)


def _at_word_edge(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """Yield the matches of pattern that start at a word edge: "task-..." holds no "sk-" key."""
    position = 0
    while (match := pattern.search(text, position)) is not None:
        start = match.start()
        if start > 0 and is_word_char(text[start - 1]):
            position = start + 1
        else:
            yield match
            position = max(match.end(), start + 1)


def _password_options(text: str, lowered: str) -> Iterator[Finding]:
    """Yield the password of mysql's -pSECRET and of sshpass's -p SECRET."""
    for match in _DASH_P.finditer(lowered):
        start = match.start()
        if start == 0 or lowered[start - 1] not in " \t" or text[start + 1] != "p":  # -P is mysql's port
            continue
        line = lowered[max(0, start - 200) : start].rpartition("\n")[2]
        tools = ("sshpass",) if match.group("space") else _PASSWORD_TOOLS
        if not any(tool in line for tool in tools):
            continue
        value = value_at(text, match.end())
        if value is None:
            continue
        if not is_placeholder(text[value[0] : value[1]]):
            yield Finding(value[0], value[1], "password", SLOT)


def _token_end(text: str, end: int) -> int:
    tail = _TOKEN_TAIL.match(text, end)
    return end if tail is None else tail.end()


def _telegram_tokens(text: str) -> Iterator[Finding]:
    for match in _TELEGRAM_SECRET.finditer(text):
        bot = _TELEGRAM_BOT.search(text, max(0, match.start() - 15), match.start())
        secret = match.group()
        if bot is not None and secret.lower() != secret and secret.upper() != secret:  # random: both cases
            yield Finding(bot.start(), _token_end(text, match.end()), "telegram_bot_token", FORMAT)


def _azure_client_secrets(text: str) -> Iterator[Finding]:
    at = text.find("Q~")
    while at >= 0:
        secret = _AZURE_CLIENT_SECRET.match(text, at - 4) if at >= 4 else None
        if secret is not None:
            yield Finding(secret.start(), secret.end(), "azure_client_secret", FORMAT)
        at = text.find("Q~", at + 2)


def _private_keys(text: str) -> Iterator[Finding]:
    covered, end_missing = 0, False
    for begin in _PEM_BEGIN.finditer(text):
        if begin.start() < covered:
            continue
        end = None if end_missing else _PEM_END.search(text, begin.end())
        end_missing = end is None  # no END after this BEGIN means none after later ones either
        if end is not None and _PEM_KEY_LINE.search(text, begin.end(), end.start()) is None:
            covered = end.end()  # b"-----BEGIN … PRIVATE KEY-----" and its END in code that parses keys
            continue
        if end is not None:
            covered = end.end()
        else:
            body = _PEM_BODY.match(text, begin.end())
            covered = body.end() if body is not None else begin.end()
        yield Finding(begin.start(), covered, "private_key", FORMAT)
