"""Markdown chat logs; aider's real history is in tests/fixtures/sessions/aider."""

from __future__ import annotations

from pathlib import Path

from incremind_daemon.sources.sessions import parse_chat_markdown

AIDER = Path(__file__).parent.parent / "fixtures" / "sessions" / "aider" / ".aider.chat.history.md"

CHAT = """
# aider chat started at 2025-01-01 10:00:00

#### fix the off-by-one in pager.py
####   it skips the last page

The loop stops one page early. Here is the fix:

```python
for page in range(count + 1):
```

> Applied edit to pager.py⏎
> Commit 1a2b3c4 fix: include the last page⏎

#### /ask why was it wrong?

`range` excludes its end.

#### /run pytest
> 3 passed⏎
""".replace("⏎", "  ")  # aider ends its lines with two spaces


def test_aider_history_keeps_prompts_and_drops_tool_output() -> None:
    messages = parse_chat_markdown(AIDER.read_text(encoding="utf-8"), agent="aider", session_id="zen")

    assert {m.role for m in messages} == {"user"}  # this log holds no replies
    assert len(messages) == 5
    assert messages[0].text == "请你分析一下我这列的处理，我想知道我"
    assert messages[-1].text.endswith("是否少了一些gemin的特有参数？")
    assert all(m.agent == "aider" and m.session_id == "zen" for m in messages)
    assert all(m.timestamp == "2025-10-23T17:04:56" for m in messages)
    everything = "\n".join(m.text for m in messages)
    for dropped in ("/add", "Added config.py", "Copied code context", "KeyboardInterrupt", "Aider v0.86.1"):
        assert dropped not in everything


def test_chat_markdown_splits_turns_and_marks_edits() -> None:
    messages = parse_chat_markdown(CHAT, session_id="s", cwd="/repo")

    assert [(m.message_id, m.role, m.text) for m in messages] == [
        ("0.0.user", "user", "fix the off-by-one in pager.py\n  it skips the last page"),
        (
            "0.0.assistant",
            "assistant",
            "The loop stops one page early. Here is the fix:\n\n```python\nfor page in range(count + 1):\n```",
        ),
        ("0.0.tool0", "tool", "edit: pager.py"),
        ("0.1.user", "user", "why was it wrong?"),
        ("0.1.assistant", "assistant", "`range` excludes its end."),
    ]
    assert {(m.agent, m.cwd, m.timestamp) for m in messages} == {("generic", "/repo", "2025-01-01T10:00:00")}


def test_chat_markdown_ids_survive_appends() -> None:
    before = parse_chat_markdown(CHAT, session_id="s")
    after = parse_chat_markdown(
        CHAT + "\n# aider chat started at 2025-01-02 09:00:00\n\n#### next day\n", session_id="s"
    )

    assert after[: len(before)] == before
    assert after[-1].message_id == "1.0.user"
    assert after[-1].text == "next day"


def test_chat_markdown_reply_growing_between_reads_keeps_its_id() -> None:
    partial = "# aider chat started at 2025-01-01 10:00:00\n\n#### hi\n\nHello"

    grown = parse_chat_markdown(partial + ", how can I help?\n", session_id="s")

    assert parse_chat_markdown(partial, session_id="s")[-1].message_id == grown[-1].message_id
    assert grown[-1].text == "Hello, how can I help?"


def test_chat_markdown_without_any_chat_yields_nothing() -> None:
    assert parse_chat_markdown("", session_id="s") == []
    assert parse_chat_markdown("> only tool output\n", session_id="s") == []
