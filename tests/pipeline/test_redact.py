"""Credential redaction in English and Chinese text, with its near misses."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incremind_daemon.pipeline.redact import MARKER_PREFIX, SecretSpan, find_secrets, redact, redact_text

# Made-up credentials in the real formats; none of them is live.
OPENAI_PROJECT = "sk-proj-Xq81nBv2LmTz4RwYp0KsJd7Hf3Gc9Ae5"
ANTHROPIC = "sk-ant-api03-p3Qx9Lr2Tz7Vw4Ny1Ks8Jd5Hf0Gb6Cm-Ae2BxR7"
GITHUB = "ghp_R4nd0mT0k3nV4lu3Xq81nBv2LmTz4RwYp0Ks"
AWS_ID = "AKIA4Q7ZT2M8XW3KD9PL"
AWS_SECRET = "q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm8Ae2BxR"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"
PEM = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"export OPENAI_API_KEY={OPENAI_PROJECT}", "export OPENAI_API_KEY=[REDACTED:openai_key]"),
        (f"key {ANTHROPIC} works", "key [REDACTED:anthropic_key] works"),
        ("old key sk-9fK2mQ7xLp4Tz8Rw1Ny5Vb3Hc6Jd0Gs", "old key [REDACTED:api_key]"),
        (f"token {GITHUB}", "token [REDACTED:github_token]"),
        ("github_pat_11ABCDE0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED:github_token]"),
        ("SLACK=xoxb-2048-4096-q8Vt2mLx7Rz4", "SLACK=[REDACTED:slack_token]"),
        (f"id {AWS_ID}", "id [REDACTED:aws_access_key_id]"),
        (f"aws_secret_access_key = {AWS_SECRET}", "aws_secret_access_key = [REDACTED:aws_secret_access_key]"),
        ("maps AIzaSyB7x-Q2mLp9Tz4Rw8Ny1Vb5Hc3Jd6Gs0Ke", "maps [REDACTED:google_api_key]"),
        ("glpat-q8Vt2mLx7Rz4Ny9Kp1Ws", "[REDACTED:gitlab_token]"),
        ("HF_TOKEN=hf_q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm", "HF_TOKEN=[REDACTED:huggingface_token]"),
        (f"cookie {JWT};", "cookie [REDACTED:jwt];"),
        (f"{PEM}\nnext line", "[REDACTED:private_key]\nnext line"),
        ('curl -H "Authorization: Bearer q8Vt2mLx7Rz4Ny9K"', 'curl -H "Authorization: Bearer [REDACTED:bearer_token]"'),
        ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED:basic_auth]"),
        ('password = "hunter2"', 'password = "[REDACTED:password]"'),
        ("DB_PASSWORD=correcthorse", "DB_PASSWORD=[REDACTED:password]"),
        ("api_key: q8Vt2mLx7Rz4", "api_key: [REDACTED:api_key]"),
        ('{"secret": "s3cr3t-value"}', '{"secret": "[REDACTED:secret]"}'),
        ("client_secret='abc'", "client_secret='[REDACTED:secret]'"),
        ('password: str = "hunter2"', 'password: str = "[REDACTED:password]"'),
        ("the password is hunter2", "the password is [REDACTED:password]"),
        (
            "https://api.example.com/v1?access_token=q8Vt2mLx7R&page=2",
            "https://api.example.com/v1?access_token=[REDACTED:token]&page=2",
        ),
        ("postgres://app:S3cretPass@db.internal:5432/prod", "postgres://app:[REDACTED:password]@db.internal:5432/prod"),
        (
            "mongodb+srv://admin:pa55w0rd@cluster0.mongodb.net/db",
            "mongodb+srv://admin:[REDACTED:password]@cluster0.mongodb.net/db",
        ),
        ("redis://:r3d1s-pass@localhost:6379/0", "redis://:[REDACTED:password]@localhost:6379/0"),
    ],
)
def test_english_credentials_are_replaced_by_typed_markers(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("密码：abc12345", "密码：[REDACTED:password]"),
        ("数据库密码是 hunter2，记得改", "数据库密码是 [REDACTED:password]，记得改"),
        ("口令: 9f8e7d6c", "口令: [REDACTED:password]"),
        ("令牌=q8Vt2mLx7Rz4", "令牌=[REDACTED:token]"),
        ("我的密码是：Passw0rd!，别告诉别人", "我的密码是：[REDACTED:password]，别告诉别人"),  # "!" is part of it
        ("密钥为 “k3y-v4lue”。", "密钥为 “[REDACTED:secret]”。"),
        (f"用这个 key：{OPENAI_PROJECT} 调用", "用这个 key：[REDACTED:openai_key] 调用"),
    ],
)
def test_chinese_credentials_are_replaced_by_typed_markers(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("飞书 webhook 是 https://open.feishu.cn/open-apis/bot/v2/hook/3f1c9e2a-7b4d-4e8f-9a60-1d2c3b4a5e6f ，写进",
         "飞书 webhook 是 https://open.feishu.cn/open-apis/bot/v2/hook/[REDACTED:feishu_webhook] ，写进"),
        ("https://open.larksuite.com/open-apis/bot/v2/hook/66a7b8c9-0d1e-4f2a-8b3c-4d5e6f7a8b9c",
         "https://open.larksuite.com/open-apis/bot/v2/hook/[REDACTED:feishu_webhook]"),
        ("企业微信机器人 https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=693a91f6-7e2d-4bc4-97a0-0ec25fa5a1b3",
         "企业微信机器人 https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=[REDACTED:wecom_webhook]"),
        ("钉钉 https://oapi.dingtalk.com/robot/send?access_token=5a8c3e0f2b7d4c9e1a6f3b8d2c7e0a9f4b1d6c3e8a5f2b9d",
         "钉钉 https://oapi.dingtalk.com/robot/send?access_token=[REDACTED:token]"),
        ("https://contoso.webhook.office.com/webhookb2/7aa49aa6-7840-443d-806c-9ec0e1b6d9a2@72f988bf-86f1/"
         "IncomingWebhook/2f3c8a0b9e4d4c6f8a1b2c3d4e5f6a7b/0b6a5c4d-3e2f-1a0b-9c8d-7e6f5a4b3c2d",
         "https://contoso.webhook.office.com/webhookb2/[REDACTED:teams_webhook]"),
        ("https://hooks.zapier.com/hooks/catch/1234567/abcde12/", "https://hooks.zapier.com/hooks/catch/[REDACTED:zapier_webhook]/"),
        ("https://maker.ifttt.com/trigger/door_open/with/key/dG9rZW4tZm9yLWlmdHR0LXRlc3Q",
         "https://maker.ifttt.com/trigger/door_open/with/key/[REDACTED:ifttt_key]"),
        ("n8n: https://n8n.example.com/webhook/4f8a2c1e-9b3d-4e7f-a6c5-1d2e3f4a5b6c.",
         "n8n: https://n8n.example.com/webhook/[REDACTED:webhook]."),
    ],
)  # fmt: skip
def test_a_webhook_address_keeps_its_host_and_loses_its_token(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "密码忘记了怎么办",
        "密码是多少？",
        "密码: 忘记了",
        "令牌桶算法限流",
        "token budget",
        "the password field is required",
        "password reset flow",
        "max_tokens = 4096",
        "token_count: 12",
        "password=<your password>",
        "password=${PASSWORD}",
        "PASSWORD=$DB_PASSWORD",
        "password: ****",
        '"password": "..."',
        "Password: required",
        "token: string",
        "password: str = Field(min_length=8)",
        "token = get_token()",
        "api_key = os.environ['API_KEY']",
        "self.secret_key = settings.SECRET_KEY",
        "password_reset_url = 'https://example.com/reset'",
        "Bearer tokens expire after an hour",
        "a task-management-system-overview-page",
        "see https://example.com:8080/users/@alice",
        "git clone git@github.com:org/repo.git",
        "plain words about keys and secrets",
        "src/hooks/useOAuth2CallbackHandler.ts",  # a React hook's file, not a webhook
        "https://example.com/docs/hooks/useOAuth2CallbackHandler.md",
        "https://github.com/acme/repo/settings/hooks/123456789",
        "POST /webhooks/stripe-payment-intent",
        # an action pinned to a commit or a tag, on a line that speaks of credentials
        "sed -i 's#aws-actions/configure-aws-credentials@v4#aws-actions/configure-aws-credentials@"
        "e3dd6a429d7300a6a4c196c26e071d42e0343502 \\# v4.0.2#' .github/workflows/tf-plan.yml",
        "login step: uses: docker/login-action@v3.3.0",
        "the password changed, it's the usual one now",
        "the token expired, its lifetime is 3600 seconds",
        "",
    ],
)
def test_near_misses_stay_untouched(text: str) -> None:
    assert redact(text) == text
    assert find_secrets(text) == []


def test_find_secrets_reports_offsets_and_kinds() -> None:
    text = f"use {GITHUB} or password=hunter2"

    spans = find_secrets(text)

    assert spans == [
        SecretSpan(4, 4 + len(GITHUB), "github_token"),
        SecretSpan(text.index("hunter2"), len(text), "password"),
    ]


def test_overlapping_findings_merge_and_keep_the_strongest_kind() -> None:
    assert redact(f"token={OPENAI_PROJECT}") == "token=[REDACTED:openai_key]"


def test_connection_string_keeps_user_and_host() -> None:
    redacted = redact("DATABASE_URL=postgresql://reporting_user:Xy9!pQ@10.0.0.5/analytics")

    assert redacted == "DATABASE_URL=postgresql://reporting_user:[REDACTED:password]@10.0.0.5/analytics"


PREFIXES = ["sk-ant-api03-", "sk-proj-", "ghp_", "gho_", "ghs_", "github_pat_", "xoxb-", "xoxp-", "glpat-", "hf_"]
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@st.composite
def generated_keys(draw: st.DrawFn) -> str:
    prefix = draw(st.sampled_from([*PREFIXES, "AKIA", "AIza", "sk-"]))
    if prefix == "AKIA":
        return prefix + draw(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", min_size=16, max_size=16))
    if prefix == "AIza":
        return prefix + draw(st.text(alphabet=ALNUM + "_-", min_size=35, max_size=35))
    body = draw(st.text(alphabet=ALNUM, min_size=36, max_size=48))
    return prefix + body + (draw(st.sampled_from("0123456789")) if prefix == "sk-" else "")


TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]) | st.sampled_from([" ", "=", ":", "\n", '"']))
SEPARATORS = st.sampled_from([" ", "\n", " = ", ": ", ' "', "：", "\t", "("])


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_redact_never_raises_and_is_idempotent(text: str) -> None:
    once = redact(text)

    assert redact(once) == once


@settings(max_examples=300, deadline=None)
@given(before=TEXT, key=generated_keys(), after=TEXT, left=SEPARATORS, right=SEPARATORS)
def test_generated_key_never_survives_in_random_text(before: str, key: str, after: str, left: str, right: str) -> None:
    text = before + left + key + right.strip() + " " + after

    redacted = redact(text)

    assert key not in redacted
    assert redact(redacted) == redacted


@settings(max_examples=200, deadline=None)
@given(
    key=st.sampled_from(["password", "PASSWORD", "api_key", "secret", "密码", "令牌", "口令"]),
    value=st.text(alphabet=ALNUM, min_size=8, max_size=20).filter(lambda v: any(c.isdigit() for c in v)),
    separator=st.sampled_from(["=", ": ", " = ", "：", "是 "]),
)
def test_assigned_values_with_digits_are_redacted(key: str, value: str, separator: str) -> None:
    if separator == "是 " and key.isascii():
        separator = " is "

    assert value not in redact(f"config {key}{separator}{value} done")


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("config api_key is 00000000 done", False),  # found by hypothesis: a key of digits alone was kept
        ("the secret is 12345678", False),
        ("The token count is 4096 and the limit is 8192.", True),  # a short run of digits is a count
    ],
)
def test_a_credential_of_digits_alone_is_redacted_when_long_enough(text: str, kept: bool) -> None:
    assert (redact(text) == text) is kept


# --- complete redaction: every format, both languages, nothing of the secret left -------------

INVISIBLES = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\U000e0041")
NPM = "npm_q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm8Ae"
PYPI = "pypi-AgEIcHlwaS5vcmcCJDU3OTM5MDk0LTk0ZjEtNDA2Ny1hNTE0LWE2NzFhNGQ1ZmI2ZAACKlsz"
SENDGRID = "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"
TELEGRAM = "5123456789:AAHk3x9Lr2Tz7Vw4Ny1Ks8Jd5Hf0Gb6CmAe"
SLACK_BOT = "xoxb-2048-4096-q8Vt2mLx7Rz4Ny9Kp1Ws"
SLACK_APP = "xapp-1-A0123BCDE-1234567890123-q8Vt2mLx7Rz4"
SLACK_HOOK = "T04Q7ZT2M/B08XW3KD9PL/q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3"
STRIPE_LIVE = "sk_live_51Hq8Vt2mLx7Rz4Ny9Kp1Ws6Jd"
STRIPE_RESTRICTED = "rk_test_51Hq8Vt2mLx7Rz4Ny9Kp1Ws6Jd"
STRIPE_WEBHOOK = "whsec_q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5"
GITLAB = "glpat-q8Vt2mLx7Rz4Ny9Kp1Ws"
GITLAB_DEPLOY = "gldt-q8Vt2mLx7Rz4Ny9Kp1Ws6J"
HUGGING_FACE = "hf_q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm"
GOOGLE_KEY = "AIzaSyB7x-Q2mLp9Tz4Rw8Ny1Vb5Hc3Jd6Gs0Ke"
GOOGLE_CLIENT = "GOCSPX-q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0"
GOOGLE_ACCESS = "ya29.a0AfH6SMBq8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5"
GOOGLE_REFRESH = "1//0gq8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5CmAe2BxR7"
AZURE_ACCOUNT = "q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm8Ae2BxR7q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm8Ae2BxR7q8Vt2m+/w=="
AZURE_SAS = "q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm8Ae2BxR7%3D"
AZURE_CLIENT = "Abc8Q~q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm8A"
AWS_STATED = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
GITHUB_SPLIT = "ghp_R4nd0mT0k3nV4lu3\u200bXq81nBv2LmTz4RwYp0Ks"

FAMILIES = {
    "npm": NPM, "pypi": PYPI, "sendgrid": SENDGRID, "telegram": TELEGRAM, "slack-bot": SLACK_BOT,
    "slack-app": SLACK_APP, "stripe-live": STRIPE_LIVE, "stripe-restricted": STRIPE_RESTRICTED,
    "stripe-webhook": STRIPE_WEBHOOK, "gitlab": GITLAB, "gitlab-deploy": GITLAB_DEPLOY, "hugging-face": HUGGING_FACE,
    "google-key": GOOGLE_KEY, "google-client": GOOGLE_CLIENT, "google-access": GOOGLE_ACCESS,
    "google-refresh": GOOGLE_REFRESH, "azure-client": AZURE_CLIENT, "github-split": GITHUB_SPLIT,
    "anthropic": ANTHROPIC, "openai": OPENAI_PROJECT,
}  # fmt: skip
CARRIERS = {"en": "Use {} for the release job.", "zh": "发布任务用这个：{}，不要外传。"}
HEX_KEY = "3f9a1c7e5b2d4086a1e3c5b7d9f0a2c4"

# (case, text, the secret as it is written in the text)
COMPLETE: list[tuple[str, str, str]] = [
    # token families, in an English and a Chinese sentence each
    *[
        (f"{name}-{language}", carrier.format(secret), secret)
        for name, secret in FAMILIES.items()
        for language, carrier in CARRIERS.items()
    ],
    ("telegram-url", f"curl https://api.telegram.org/bot{TELEGRAM}/getMe", TELEGRAM),
    ("slack-webhook", f"post to https://hooks.slack.com/services/{SLACK_HOOK}", SLACK_HOOK),
    ("azure-account-key", f"Protocol=https;AccountName=prod;AccountKey={AZURE_ACCOUNT};", AZURE_ACCOUNT),
    ("azure-sas", f"https://prod.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig={AZURE_SAS}", AZURE_SAS),
    ("azure-sas-zh", f"共享访问签名链接：https://prod.blob.core.windows.net/c?sp=r&sig={AZURE_SAS}", AZURE_SAS),
    # secrets stated in words
    ("aws-stated-en", f"the aws secret for prod is {AWS_STATED}", AWS_STATED),
    ("aws-stated-zh", f"生产环境的 AWS 密钥是 {AWS_STATED}", AWS_STATED),
    ("password-changed-en", "The password for the admin account was changed to Hunter2Xyz!", "Hunter2Xyz!"),
    ("password-changed-zh", "测试服的密码改成了 Hunter2Xyz!", "Hunter2Xyz!"),
    ("password-now-en", "fyi the staging db password is now Tr0ub4dor&3 until Friday", "Tr0ub4dor&3"),
    ("password-now-zh", "Redis 的密码现在是 Tr0ub4dor&3，周五前别改", "Tr0ub4dor&3"),
    ("password-news-en", "the staging db password changed, its Ledg3rly-St4ging!2026 now, .env only",
     "Ledg3rly-St4ging!2026"),
    ("password-rotated-en", "prod password rotated — new one is Zq9!mR2#kL7p", "Zq9!mR2#kL7p"),
    ("api-key-stated-en", f"the API key for the maps service is {HEX_KEY}", HEX_KEY),
    ("api-key-stated-zh", f"地图服务的 API 密钥为 {HEX_KEY}。", HEX_KEY),
    ("token-stated-en", "My deploy token is d3pl0y-Q8vT2mLx7Rz4, keep it safe", "d3pl0y-Q8vT2mLx7Rz4"),
    ("token-stated-zh", "部署令牌是 d3pl0y-Q8vT2mLx7Rz4，注意保密", "d3pl0y-Q8vT2mLx7Rz4"),
    ("passphrase-quoted-en", 'the passphrase is "correct horse battery staple"', "correct horse battery staple"),
    ("words-between-en", "the password I gave you yesterday is Summer2024-secure", "Summer2024-secure"),
    ("words-between-zh", "我昨天给你的那个密码是 Summer2024-secure", "Summer2024-secure"),
    ("no-separator-zh", "数据库口令 Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("no-separator-glued-zh", "WiFi密码Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("no-separator-key-zh", "密钥 9f8e7d6c5b4a39281706f5e4d3c2b1a0 只给运维", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    ("fullwidth-colon-zh", "密码：Hunter2Xyz!", "Hunter2Xyz!"),
    ("trailing-question-zh", "口令=Pa55word?", "Pa55word?"),
    ("ampersand-en", "PASSWORD=Tr0ub4dor&3 make deploy", "Tr0ub4dor&3"),
    # user / password pairs
    ("pair-en", "admin / S3cretPassw0rd!", "S3cretPassw0rd!"),
    ("pair-login-en", "login for the test box: alice / S3cretPassw0rd!", "S3cretPassw0rd!"),
    ("pair-zh", "测试环境：root / Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("pair-login-zh", "登录账号 ops/S3cretPassw0rd!", "S3cretPassw0rd!"),
    ("curl-user", "curl -u admin:S3cretPassw0rd! https://ci.example.com/api", "S3cretPassw0rd!"),
    # invisible characters and odd spaces inside or around a secret
    ("zero-width-in-npm", f"{NPM[:12]}\u00ad{NPM[12:]}", f"{NPM[:12]}\u00ad{NPM[12:]}"),
    ("joiner-in-password-zh", "密码：Hunter\u200d2Xyz!", "Hunter\u200d2Xyz!"),
    ("zero-width-in-key-name", "pass\u200bword = Hunter2Xyz!", "Hunter2Xyz!"),
    ("bom-in-sendgrid", f"{SENDGRID[:20]}\ufeff{SENDGRID[20:]}", f"{SENDGRID[:20]}\ufeff{SENDGRID[20:]}"),
    ("no-break-space", "password:\u00a0Hunter2Xyz!", "Hunter2Xyz!"),
    (
        "tag-characters",
        f"token {GITLAB[:9]}\U000e0041\U000e0042{GITLAB[9:]} ok",
        f"{GITLAB[:9]}\U000e0041\U000e0042{GITLAB[9:]}",
    ),
]


def visible(text: str) -> str:
    return "".join(char for char in text if char not in INVISIBLES and not "\U000e0000" <= char <= "\U000e0fff")


def leaked(text: str, secret: str, redacted: str) -> list[str]:
    """Return each 4-character piece of secret left in redacted text that the rest of text does not hold."""
    context = visible(text.replace(secret, " "))
    remains = visible(re.sub(r"\[REDACTED:\w+\]", " ", redacted))
    shown = visible(secret)
    pieces = {shown[at : at + 4] for at in range(len(shown) - 3)}
    return sorted(piece for piece in pieces if piece in remains and piece not in context)


@pytest.mark.parametrize(("text", "secret"), [case[1:] for case in COMPLETE], ids=[case[0] for case in COMPLETE])
def test_nothing_of_a_secret_is_left_beside_its_marker(text: str, secret: str) -> None:
    redacted = redact(text)

    assert MARKER_PREFIX in redacted
    assert leaked(text, secret, redacted) == []
    assert redact(redacted) == redacted


def test_a_token_split_by_a_zero_width_space_is_one_span_over_the_text_as_given() -> None:
    text = f"token {GITHUB_SPLIT} and\u200b more"

    [span] = find_secrets(text)

    assert text[span.start : span.end] == GITHUB_SPLIT
    assert redact(text) == "token [REDACTED:github_token] and\u200b more"  # invisible characters elsewhere stay


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"npm {NPM}", "npm [REDACTED:npm_token]"),
        (f"{PYPI}", "[REDACTED:pypi_token]"),
        (f"key {SENDGRID}", "key [REDACTED:sendgrid_key]"),
        (f"bot {TELEGRAM}", "bot [REDACTED:telegram_bot_token]"),
        (f"{SLACK_APP}", "[REDACTED:slack_token]"),
        (f"https://hooks.slack.com/services/{SLACK_HOOK}", "https://hooks.slack.com/services/[REDACTED:slack_webhook]"),
        (f"{STRIPE_WEBHOOK}", "[REDACTED:stripe_key]"),
        (f"{GITLAB_DEPLOY}", "[REDACTED:gitlab_token]"),
        (f"{GOOGLE_CLIENT}", "[REDACTED:google_oauth_secret]"),
        (f"{GOOGLE_ACCESS}", "[REDACTED:google_oauth_token]"),
        (f"{AZURE_CLIENT}", "[REDACTED:azure_client_secret]"),
        (f"?sp=r&sig={AZURE_SAS}", "?sp=r&sig=[REDACTED:azure_sas_signature]"),
        ("the aws secret for prod is " + AWS_STATED, "the aws secret for prod is [REDACTED:aws_secret_access_key]"),
        ("数据库口令 Tr0ub4dor&3", "数据库口令 [REDACTED:password]"),
        ("admin / S3cretPassw0rd!", "admin / [REDACTED:password]"),
        ("密码：Hunter2Xyz!", "密码：[REDACTED:password]"),
        ("the password is hunter2.", "the password is [REDACTED:password]."),  # a final "." ends the sentence
    ],
)
def test_new_formats_get_their_own_kind(text: str, expected: str) -> None:
    assert redact(text) == expected


# --- ordinary text comes through unchanged ---------------------------------------------------

ORDINARY = [
    # English prose about credentials
    "the password field is validated on blur",
    "The token budget is 1500 per request.",
    "The password must be at least 8 characters and is checked on submit.",
    "Your API key is shown only once, so copy it now.",
    "The access token is a JWT signed with RS256.",
    "The token is HS256-signed and base64url-encoded.",
    "the token for user 42 is refreshed every 15 minutes",
    "The secret to good retries is jitter.",
    "The key is to retry with exponential backoff.",
    "The password hash is stored with bcrypt, cost 12.",
    "The token endpoint is https://auth.example.com/oauth2/token",
    "API key rotation is scheduled for 2024-06-01.",
    "The secret key is 32 bytes long.",
    "the password for the admin account is in 1Password",
    "my password is the same as before",
    "The token count is 4096 and the limit is 8192.",
    "Set the password to something long; the token is valid for 3600 seconds.",
    "Pass: 120, fail: 3, skipped: 4",
    "Tokens per second went from 41.5 to 57.2 after the upgrade.",
    "Bearer tokens expire after an hour; refresh tokens last 30 days.",
    "read / write access, input / output, client / server, TCP / IP",
    "Version 2.3.0+cu121 of torch, python 3.11.7, numpy==1.26.4",
    "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixes the token refresh race",
    "request 550e8400-e29b-41d4-a716-446655440000 failed with 401",
    "see /home/dev/projects/app/src/auth/token_store.py and ~/.config/app/credentials.json",
    "C:\\Users\\dev\\AppData\\Roaming\\npm\\node_modules",
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Copy test/test*.py and docs/*.md into the sdist.",
    "Run npm install, then npm run build; the npm token is read from ~/.npmrc.",
    "Uploading to PyPI needs a token; see https://pypi.org/help/#apitoken",
    "The Slack app posts to #deploys; Telegram bots reply within 2 s.",
    "The ratio was 3/4 on 2024/05/01 at 08:30.",
    "ssh-keygen -t ed25519 -C dev@example.com",
    # code
    "password: str = Field(min_length=8)",
    "token = get_token()",
    "creds = base64.b64encode(user_pass.encode()).decode('ascii')",
    "api_key = os.environ['API_KEY']",
    "if token == 'lambda':",
    "self.secret_key = settings.SECRET_KEY",
    "password_min_length = 8",
    "max_tokens = 4096",
    "TOKEN_TTL=3600",
    "proxy_pass = http://127.0.0.1:8000",
    "proxy_pass http://backend;",
    "def check_password(user: User, password: str) -> bool:",
    "docker run -u 1000:1000 -e POSTGRES_PASSWORD=$POSTGRES_PASSWORD postgres:16",
    "git push -u origin main",
    "const tokenizer = new Tokenizer({ vocab: 'cl100k_base' });",
    'echo "password reset link sent" >> /var/log/app.log',
    "https://example.com/search?q=token&page=2&sort=desc",
    # Chinese prose about credentials
    "密码长度至少 8 位",
    "密码忘记了怎么办？请点击“找回密码”。",
    "密码是否正确由后端校验，前端只校验格式。",
    "比较两次输入的密码是否一致",
    "令牌桶算法限流，令牌桶大小为 100000，每秒补充 500 个。",
    "令牌有效期为 3600 秒，过期后用刷新令牌换新的。",
    "令牌类型是 Bearer，格式是 JWT。",
    "密钥对是 RSA2048，私钥文件是 id_ed25519。",
    "密钥算法是 AES256，密码使用 bcrypt 加密。",
    "密码 sha256 哈希后存储。",
    "获取访问令牌失败：HTTP 401",
    "首次推送可能需要输入 GitHub 用户名和密码/令牌",
    "OPENAI_API_KEY（必需）：您的 API 密钥",
    "@param keyBytes 密钥byte数组",
    "基于口令的加密，加盐后再做 MD5",
    "随机密码/口令/PIN/Token/UUID/强度检测",
    "用户名/密码错误，请重试",
    "今天把 Redis 的 maxmemory-policy 改成 allkeys-lru，令牌桶限流也调了。",
    "在 src/auth/token.py 里修了第 42 行。",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_prose_and_code_come_through_unchanged(text: str) -> None:
    assert find_secrets(text) == []
    assert redact(text) == text


def test_ordinary_lines_together_come_through_unchanged() -> None:
    text = "\n".join(ORDINARY)

    assert redact(text) == text


@settings(max_examples=200, deadline=None)
@given(key=generated_keys(), cuts=st.lists(st.tuples(st.integers(1, 30), st.sampled_from(INVISIBLES)), max_size=3))
def test_invisible_characters_inside_a_key_do_not_hide_it(key: str, cuts: list[tuple[int, str]]) -> None:
    hidden = key
    for at, char in sorted(cuts, reverse=True):
        hidden = hidden[:at] + char + hidden[at:]

    redacted = redact(f"use {hidden} now")

    assert key not in visible(redacted)
    assert leaked(f"use {hidden} now", hidden, redacted) == []


def test_offsets_move_with_the_text_and_one_inside_a_secret_lands_on_its_marker() -> None:
    text = f"a {NPM} b 密码：Hunter2Xyz! c"
    redacted = redact_text(text)

    assert redacted.text == "a [REDACTED:npm_token] b 密码：[REDACTED:password] c"
    assert redacted.moved(0) == 0 and redacted.moved(2) == 2  # before and at the start of the first secret
    assert redacted.moved(5) == 2 and redacted.moved(5, closing=True) == len("a [REDACTED:npm_token]")
    after_first = text.index(" b ")
    assert redacted.text[redacted.moved(after_first) :].startswith(" b 密码：[REDACTED")
    assert redacted.moved(len(text)) == len(redacted.text)
    assert redact_text("nothing here").changed is False
