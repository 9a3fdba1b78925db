"""Credential redaction in English and Chinese text, with its near misses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incremind_daemon.pipeline.redact import SecretSpan, find_secrets, redact

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
        ("我的密码是：Passw0rd!，别告诉别人", "我的密码是：[REDACTED:password]!，别告诉别人"),
        ("密钥为 “k3y-v4lue”。", "密钥为 “[REDACTED:secret]”。"),
        (f"用这个 key：{OPENAI_PROJECT} 调用", "用这个 key：[REDACTED:openai_key] 调用"),
    ],
)
def test_chinese_credentials_are_replaced_by_typed_markers(text: str, expected: str) -> None:
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
