"""A labelled corpus for redaction: texts that hold a credential, and texts that only look as if they might.

Every credential here is made up in the real format; none is live. Each
positive names the credential exactly as it is written in the text, so a test
can check that the marker replaced that span and nothing else: nothing of the
secret beside the marker, no word of the sentence taken with it.
"""

from __future__ import annotations

from typing import NamedTuple


class Positive(NamedTuple):
    case: str
    text: str
    secret: str  # exactly as written in text (invisible characters included)


class Negative(NamedTuple):
    case: str
    text: str


NPM = "npm_q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm8Ae"
PYPI = "pypi-AgEIcHlwaS5vcmcCJDU3OTM5MDk0LTk0ZjEtNDA2Ny1hNTE0LWE2NzFhNGQ1ZmI2ZAACKlsz"
SENDGRID = "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"
TELEGRAM = "5123456789:AAHk3x9Lr2Tz7Vw4Ny1Ks8Jd5Hf0Gb6CmAe"
SLACK = {
    prefix: f"{prefix}-2048-4096-q8Vt2mLx7Rz4Ny9Kp1Ws" for prefix in ("xoxb", "xoxp", "xoxa", "xoxr", "xoxs", "xoxo")
}
STRIPE = {
    "sk_live": "sk_live_51Hq8Vt2mLx7Rz4Ny9Kp1Ws6Jd",
    "rk_live": "rk_live_51Hq8Vt2mLx7Rz4Ny9Kp1Ws6Jd",
    "pk_live": "pk_live_51Hq8Vt2mLx7Rz4Ny9Kp1Ws6Jd",
}
GITLAB = "glpat-q8Vt2mLx7Rz4Ny9Kp1Ws"
HUGGING_FACE = "hf_q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm"
GOOGLE = "AIzaSyB7x-Q2mLp9Tz4Rw8Ny1Vb5Hc3Jd6Gs0Ke"
AZURE_KEY = "q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm8Ae2BxR7q8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm8Ae2BxR7q8Vt2m+/w=="
AWS_ID = "AKIA4Q7ZT2M8XW3KD9PL"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
GITHUB = "ghp_R4nd0mT0k3nV4lu3Xq81nBv2LmTz4RwYp0Ks"
GITHUB_FINE = "github_pat_11ABCDE0123456789_abcdefghijklmnopqrstuvwxyz"
OPENAI = "sk-proj-Xq81nBv2LmTz4RwYp0KsJd7Hf3Gc9Ae5"
ANTHROPIC = "sk-ant-api03-p3Qx9Lr2Tz7Vw4Ny1Ks8Jd5Hf0Gb6Cm-Ae2BxR7"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAq8Vt2mLx7Rz4Ny9Kp1Ws6Jd3Hf0Gb5Cm8Ae2BxR7q8Vt2mLx\n"
    "-----END RSA PRIVATE KEY-----"
)
HEX_KEY = "8f14e45fceea167a5a36dedd4bea2543"
GITHUB_SPLIT = "ghp_abc\u200bdefR4nd0mT0k3nV4lu3Xq81nBv2LmTz4"  # split by a zero-width space


def split(secret: str, at: int, invisible: str) -> str:
    """Return secret with an invisible character put in at ``at``."""
    return secret[:at] + invisible + secret[at:]


# A token family, in an English, a Chinese and a mixed sentence.
FAMILIES: dict[str, str] = {
    "npm": NPM, "pypi": PYPI, "sendgrid": SENDGRID, "telegram": TELEGRAM,
    **{f"slack-{prefix}": token for prefix, token in SLACK.items()},
    **{f"stripe-{prefix}": key for prefix, key in STRIPE.items()},
    "gitlab": GITLAB, "hugging-face": HUGGING_FACE, "google": GOOGLE, "aws-id": AWS_ID, "github": GITHUB,
    "github-fine": GITHUB_FINE, "openai": OPENAI, "anthropic": ANTHROPIC, "jwt": JWT,
}  # fmt: skip
CARRIERS = {
    "en": "Use {} for the release job.",
    "zh": "发布任务用这个：{}，不要外传。",
    "mixed": "CI 里的 key 是 {} (rotate monthly)",
}

POSITIVES: list[Positive] = [
    *[
        Positive(f"{name}-{language}", carrier.format(secret), secret)
        for name, secret in FAMILIES.items()
        for language, carrier in CARRIERS.items()
    ],
    Positive("telegram-url", f"curl https://api.telegram.org/bot{TELEGRAM}/getMe", TELEGRAM),
    Positive("pem", f"key file:\n{PEM}\nthat's it", PEM),
    Positive("azure-connection", f"DefaultEndpointsProtocol=https;AccountName=prod;AccountKey={AZURE_KEY};", AZURE_KEY),
    Positive("azure-connection-zh", f"连接串：AccountName=prod;AccountKey={AZURE_KEY};EndpointSuffix=x", AZURE_KEY),
    Positive("url-password", "postgres://app:S3cretPass@db.internal:5432/prod", "S3cretPass"),
    Positive("url-password-zh", "数据库地址 mysql://root:Tr0ub4dor&3@10.0.0.5:3306/app", "Tr0ub4dor&3"),
    Positive("bearer", 'curl -H "Authorization: Bearer q8Vt2mLx7Rz4Ny9K"', "q8Vt2mLx7Rz4Ny9K"),
    # the formats an adversarial pass found stored, as it wrote them
    Positive("found-aws-stated", f"the aws secret for prod is {AWS_SECRET}", AWS_SECRET),
    Positive("found-no-separator-zh", "数据库口令 Tr0ub4dor&3", "Tr0ub4dor&3"),
    Positive("found-pair", "admin / S3cretPassw0rd!", "S3cretPassw0rd!"),
    Positive("found-zero-width-github", GITHUB_SPLIT, GITHUB_SPLIT),
    Positive("found-fullwidth-colon", "密码：Hunter2Xyz!", "Hunter2Xyz!"),
    # stated in words, English
    Positive("en-db-password", "The staging database password is Tr0ub4dor&3", "Tr0ub4dor&3"),
    Positive("en-deploy-token", "our deploy token for GitLab is d3pl0y-Q8vT2mLx7Rz4, keep it", "d3pl0y-Q8vT2mLx7Rz4"),
    Positive("en-passphrase", "the passphrase for the backup is 'blue-Harbor-42-lantern'", "blue-Harbor-42-lantern"),
    Positive("en-api-key", f"The API key for the weather service is {HEX_KEY}.", HEX_KEY),
    Positive("en-changed-to", "the vpn secret was changed to Zq9!mK2#pL yesterday", "Zq9!mK2#pL"),
    Positive("en-is-now", "FYI the redis password is now Hunter2Xyz! until Friday", "Hunter2Xyz!"),
    Positive("en-reset-to", "The admin password has been reset to N3wPass!2024", "N3wPass!2024"),
    Positive("en-colon", "Jenkins api token: 11a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7", "11a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7"),
    Positive("en-no-separator", "username admin password S3cretPassw0rd!", "S3cretPassw0rd!"),
    Positive("en-words-between", "the password I gave you yesterday is Summer2024-secure", "Summer2024-secure"),
    Positive("en-sentence-end", "the wifi password is CorrectHorse9.", "CorrectHorse9"),
    Positive("en-exclamation", "The root password is Tr0ub4dor&3!", "Tr0ub4dor&3!"),
    Positive("en-in-brackets", "(password: Tr0ub4dor&3)", "Tr0ub4dor&3"),
    Positive("en-brackets-inside", "the password is Pa{ss}w0rd! now", "Pa{ss}w0rd!"),
    Positive("en-comma-inside", "the vpn password is Hun,ter2Xyz, remember it", "Hun,ter2Xyz"),
    # stated in words, Chinese
    Positive("zh-is", "服务器的密码是 Tr0ub4dor&3", "Tr0ub4dor&3"),
    Positive("zh-is-glued", "数据库的密码是Tr0ub4dor&3，用户名是admin", "Tr0ub4dor&3"),
    Positive("zh-aws", f"生产环境的 AWS 密钥是 {AWS_SECRET}", AWS_SECRET),
    Positive("zh-wei", "测试账号的口令为 Zq9!mK2#pL", "Zq9!mK2#pL"),
    Positive("zh-space", "令牌 q8Vt2mLx7Rz4Ny9K", "q8Vt2mLx7Rz4Ny9K"),
    Positive("zh-space-password", "密码 Hunter2Xyz!", "Hunter2Xyz!"),
    Positive("zh-glued", "WiFi密码Tr0ub4dor&3", "Tr0ub4dor&3"),
    Positive("zh-key-colon", "密钥: abcdEFGH1234ijkl", "abcdEFGH1234ijkl"),
    Positive("zh-changed", "堡垒机密码改成了 N3wPass!2024", "N3wPass!2024"),
    Positive("zh-now", "Redis 的密码现在是 Hunter2Xyz!，周五前别改", "Hunter2Xyz!"),
    Positive("zh-quoted", "口令：“Tr0ub4dor&3”", "Tr0ub4dor&3"),
    Positive("zh-full-stop", "密码是 Hunter2Xyz!。", "Hunter2Xyz!"),
    Positive("zh-account-password", "账号 admin 密码 S3cretPassw0rd!", "S3cretPassw0rd!"),
    Positive("zh-brackets-inside", "密码：Hunter(2)Xyz!，别忘了", "Hunter(2)Xyz!"),
    Positive("zh-semicolon-inside", "口令 Tr0ub;4dor&3 已更新", "Tr0ub;4dor&3"),
    Positive("zh-backslash-inside", "密钥：Zq9!mK2#pL\\x7", "Zq9!mK2#pL\\x7"),
    Positive("zh-token-is", "新的 API 令牌是 q8Vt2mLx7Rz4Ny9K", "q8Vt2mLx7Rz4Ny9K"),
    # mixed languages
    Positive("mixed-password-shi", "Staging 的 admin password 是 S3cretPassw0rd!", "S3cretPassw0rd!"),
    Positive("mixed-token-shi", "deploy 用的 token 是 q8Vt2mLx7Rz4Ny9K", "q8Vt2mLx7Rz4Ny9K"),
    Positive("mixed-secret-en-zh", "the aws secret 在这里: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", AWS_SECRET),
    # user / password pairs
    Positive("pair-login", "login for the test box: alice / S3cretPassw0rd!", "S3cretPassw0rd!"),
    Positive("pair-zh", "测试环境：root / Tr0ub4dor&3", "Tr0ub4dor&3"),
    Positive("pair-zh-account", "登录账号 ops/S3cretPassw0rd!", "S3cretPassw0rd!"),
    Positive("colon-pair-login", "login: alice:S3cretPassw0rd!", "S3cretPassw0rd!"),
    Positive("colon-pair-zh", "登录用 admin:S3cretPassw0rd!", "S3cretPassw0rd!"),
    Positive("colon-pair-usual-user", "ssh in as root:Tr0ub4dor&3 for now", "Tr0ub4dor&3"),
    Positive("colon-pair-sign-in", "Sign in with deploy:Tr0ub4dor&3 on the staging console", "Tr0ub4dor&3"),
    # code and configuration
    Positive("env-file", "DB_PASSWORD=correcthorse", "correcthorse"),
    Positive("yaml", 'api_key: "q8Vt2mLx7Rz4"', "q8Vt2mLx7Rz4"),
    Positive("python-kwarg", 'connect(host="db", password="Tr0ub4dor&3")', "Tr0ub4dor&3"),
    Positive("json", '{"client_secret": "s3cr3t-value-42"}', "s3cr3t-value-42"),
    Positive("mysql-p", "mysql -u root -pS3cretPassw0rd! app", "S3cretPassw0rd!"),
    Positive("sshpass", "sshpass -p Tr0ub4dor&3 ssh root@10.0.0.5", "Tr0ub4dor&3"),
    Positive("sql-identified", "CREATE USER 'bob'@'%' IDENTIFIED BY 'S3cret!x';", "S3cret!x"),
    Positive("sql-role", "ALTER ROLE app WITH LOGIN PASSWORD 'Tr0ub4dor&3';", "Tr0ub4dor&3"),
    Positive("curl-user", "curl -u admin:S3cretPassw0rd! https://ci.example.com/api", "S3cretPassw0rd!"),
    Positive("cli-option", "deploy --password Tr0ub4dor&3 --host prod", "Tr0ub4dor&3"),
    Positive("export", f"export GITHUB_TOKEN={GITHUB}", GITHUB),
    Positive("connection-string", "Server=db;Password=Tr0ub4dor&3;Database=app", "Tr0ub4dor&3"),
    Positive("env-brackets", "DB_PASSWORD=Tr0ub[4]dor", "Tr0ub[4]dor"),
    Positive("format-token-glued", f"the token {HUGGING_FACE}! works", f"{HUGGING_FACE}!"),
    Positive("query", "https://api.example.com/v1?access_token=q8Vt2mLx7R&page=2", "q8Vt2mLx7R"),
    # invisible characters inside the secret or the words that name it
    Positive("zwsp-in-key-word-zh", "密\u200b码：Hunter2Xyz!", "Hunter2Xyz!"),
    Positive("soft-hyphen-in-key-word", "pass\u00adword = Hunter2Xyz!", "Hunter2Xyz!"),
    *[
        Positive(case, before + secret + after, secret)
        for case, before, secret, after in (
            ("invisible-times-in-npm", "", split(NPM, 4, "\u2062"), ""),
            ("word-joiner-in-aws", "the aws secret for prod is ", split(AWS_SECRET, 20, "\u2060"), ""),
            ("bom-in-sendgrid", "mail key ", split(SENDGRID, 10, "\ufeff"), ""),
            ("lrm-in-anthropic", "", split(ANTHROPIC, 7, "\u200e"), " works"),
            ("hangul-filler-in-hf", "HF: ", split(HUGGING_FACE, 9, "\u3164"), ""),
            ("zwnj-in-telegram-zh", "机器人令牌 ", split(TELEGRAM, 14, "\u200c"), "，别外传"),
        )
    ],
    Positive("zwj-in-password-zh", "密码：Hunter\u200d2Xyz!", "Hunter\u200d2Xyz!"),
    Positive("nbsp-after-colon", "password:\u00a0Hunter2Xyz!", "Hunter2Xyz!"),
]

NEGATIVES: list[Negative] = (
    [
        Negative(f"en-{at}", text)
        for at, text in enumerate(
            [
                "the password is stored in the vault",
                "the secret is to review daily",
                "The secret to good retries is jitter.",
                "The password is correct.",
                "the token is expired",
                "The API key is invalid; ask for a new one.",
                "the token was revoked yesterday",
                "The password must contain 1 uppercase letter, 1 digit and 1 symbol (!@#$).",
                "the passphrase prompt appears twice",
                "The key is 42 characters long.",
                "The secret key is in the env file.",
                "the password prompt is shown after 3 tries",
                "use 1Password for all credentials",
                "PR #1234: rotate the token on deploy",
                "The api key header is X-Api-Key.",
                "authentication token TTL: 3600s",
                "session token count: 1532",
                "tokens: 1,532 in / 480 out",
                "ghp_ prefix tokens are GitHub personal access tokens",
                "xoxb- tokens are bot tokens; AKIA keys are AWS access key ids",
                "login at 10:30:00 from 192.168.1.10",
                "Login page: https://example.com/login",
                "login: alice",
                "account: acme-prod (123456789012)",
                "read / write, client / server, input/output",
                "admin / settings / users",
                "the secret sauce is caching",
                "my password is the same as before",
                "Your API key is shown only once, so copy it now.",
            ]
        )
    ]
    + [
        Negative(f"zh-{at}", text)
        for at, text in enumerate(
            [
                "密码是必填项",
                "密码是必须的",
                "密码错误，请重试",
                "密码是什么？",
                "请输入密码",
                "口令不能为空",
                "令牌是一次性的",
                "密钥是对称的",
                "设置密码时至少需要 8 位",
                "令牌桶算法限流，令牌桶大小为 100000",
                "我们的秘诀是每天复盘",
                "用户名/密码错误",
                "账号 admin 已锁定",
                "密码长度至少 8 位",
                "私钥文件是 id_ed25519，不要提交",
                "令牌有效期为 3600 秒",
            ]
        )
    ]
    + [
        Negative(f"code-{at}", text)
        for at, text in enumerate(
            [
                "password_hash = bcrypt.hash(password)",
                "token_count = len(tokens)",
                "for token in tokens:",
                "assert token == expected_token",
                "jwt.decode(token, key, algorithms=['HS256'])",
                "API_KEY = os.getenv('API_KEY')",
                'headers = {"Authorization": f"Bearer {token}"}',
                "monkeypatch.setattr(client, 'token', None)",
                "PASSWORD_MIN_LENGTH=12",
                "secret_name: prod/db/password",
                "kubectl create secret generic db-pass --from-literal=password=$DB_PASS",
                "vault kv get secret/prod/db",
                "docker run -p 5432:5432 -p3306:3306 postgres:16-alpine",
                "image: redis:7.2-alpine",
                "mysql -u root -p app",
                "npm install --save-dev typescript@5.4.5",
                "pip install pypi-simple==2.0",
                "ssh root@192.168.1.10",
                "keyboard shortcut Ctrl+Shift+P",
                "bypass: true",
                "password: str = Field(min_length=8)",
                "self.secret_key = settings.SECRET_KEY",
                "proxy_pass http://backend;",
                # found as credentials in installed libraries' source by earlier rules
                "native_token = current_token().native_token",
                "user_password = rc4_decrypt(rc4_key, o_entry)",
                ".token td:nth-child(1) { width: 10% }",
                "pass_context = jinja2.pass_context",
                'tokenizer.add_special_tokens({"pad_token": "[PAD]"})',
                'EXPIRED_TOKEN = "expired_token"',
                'Token.Keyword: "bold #08547A",',
                'Token: "#d8dee9",',
                "private_key: Ed25519PrivateKey | None = None",
                'publicKeyToken="1fc8b3b9a1e18e3b"',
                '_SK_START = b"-----BEGIN OPENSSH PRIVATE KEY-----"\n_SK_END = b"-----END OPENSSH PRIVATE KEY-----"',
                'api_key="hf_...",  # your HF token',
                "on_resumption_token: Callable[[str], Awaitable[None]]",
                "Load a dynamic library identified by 'name'.",
                'r"|due date|budget|password manager|python|node|go|java)"',
                "every token: use-m3 took 2 GB for a 450 KB query",
                "if (token := process_start_token(os.getpid())) is not None:",
                "credentials = standard_b64encode(credentials).decode('ascii')",
                '"username/iccv-2023-64f9a55bb3115b4f513ec026"',
                "SECRETS_DIR_MAX_ENTRIES = 10_000",
                '#> {"secret_date":"****/**/**"}',
            ]
        )
    ]
    + [
        Negative(f"ids-{at}", text)
        for at, text in enumerate(
            [
                "sha256 of the release: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "file checksum 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 matches",
                "UUID 123e4567-e89b-12d3-a456-426614174000",
                "request 550e8400-e29b-41d4-a716-446655440000 failed with 401",
                "commit a94a8fe5ccb19ba61c4c0873d391e987982fbbd3",
                "merged 3f2a9c1 into main",
                "version 1.2.3-beta.4, v2.10.0-rc1, node v20.11.1",
                "model: claude-3-5-sonnet-20241022, gpt-4o-2024-08-06",
                "build 2024.05.01-3f2a9c1",
                "部署完成，commit 3f2a9c1d8e7b，版本 v1.4.2",
                "文件的 SHA-256 是 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "ratio 16:9 at 12:30:45",
            ]
        )
    ]
)
