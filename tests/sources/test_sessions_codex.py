"""Codex CLI rollouts, parsed from real files in tests/fixtures/sessions/codex."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from incremind_daemon.errors import ExtractError
from incremind_daemon.sources.sessions import CodexParser, SessionMessage, SessionParser, open_rollout
from incremind_daemon.sources.sessions.cleaning import tool_marker

FIXTURES = Path(__file__).parent.parent / "fixtures" / "sessions" / "codex"
VSCODE = FIXTURES / "codex.jsonl"
CLI = FIXTURES / "sample_codex_session.jsonl"
ROLLOUT_NAME = "rollout-2025-09-19T17-02-12-01996135-afde-7911-97f0-d863511eca56.jsonl"


def parse_lines(lines: list[bytes], parser: CodexParser | None = None) -> list[SessionMessage]:
    parser = parser or CodexParser()
    return [message for line in lines for message in parser.feed(line)] + parser.flush()


def parse_file(path: Path) -> list[SessionMessage]:
    return parse_lines(path.read_bytes().splitlines(), CodexParser.for_path(path))


def by_role(messages: list[SessionMessage], role: str) -> list[SessionMessage]:
    return [message for message in messages if message.role == role]


def test_codex_parser_satisfies_the_session_parser_protocol() -> None:
    parser: SessionParser = CodexParser()
    assert parser.flush() == []


def test_codex_vscode_rollout_keeps_the_request_and_each_reply_once() -> None:
    messages = parse_file(VSCODE)

    (prompt,) = by_role(messages, "user")
    assert prompt.text.startswith("幫我檢查一下 go.mod 裡面 為何 go版本是 1.24?")
    assert "Context from my IDE setup" not in prompt.text
    replies = by_role(messages, "assistant")
    agent_events = [
        record["payload"]["message"]
        for record in map(json.loads, VSCODE.read_bytes().splitlines())
        if record["type"] == "event_msg" and record["payload"]["type"] == "agent_message"
    ]
    assert [m.text for m in replies] == agent_events  # each reply once, though logged twice
    assert replies[-1].text.startswith("Here’s what I changed and what I found.")
    assert {m.session_id for m in messages} == {"01996135-afde-7911-97f0-d863511eca56"}
    assert {m.cwd for m in messages} == {"/proj/ds906659/gai/claude-code"}
    assert {m.git_branch for m in messages} == {"main"}


def test_codex_tool_calls_become_markers_without_output() -> None:
    tools = {m.message_id: m.text for m in by_role(parse_file(VSCODE), "tool")}

    assert tools["call_pEqHamKTEvL6ofrtlsNEi8dt"] == "shell: ls -la"
    assert tools["call_xUErwgRipJt0FwomBq60pMg0"] == "apply_patch: go.mod"
    assert tools["call_YYYpMp6f7qUz3cF3JCq2w2Ni"] == "update_plan"
    assert tools["call_exec_patch_cell01"] == "exec: await tools.apply_patch(patchText);"
    everything = "\n".join(m.text for m in parse_file(VSCODE))
    for output in ("Plan updated", "Success. Updated the following files", "total 124", "module claude-code-helper"):
        assert output not in everything


def test_codex_injected_context_is_not_a_message() -> None:
    messages = parse_file(CLI)

    assert [m.text for m in messages] == [
        "can you analyse the MD files in this directory and determine if the info we have is clear enough "
        "to start planning the migration?"
    ]
    everything = "\n".join(m.text for path in (CLI, VSCODE) for m in parse_file(path))
    for injected in ("AGENTS.md instructions", "<INSTRUCTIONS>", "environment_context", "## Skills", "sandbox_mode"):
        assert injected not in everything


def test_codex_meta_reports_session_details() -> None:
    parser = CodexParser()
    parse_lines(CLI.read_bytes().splitlines(), parser)

    meta = parser.meta
    assert meta is not None
    assert (meta.session_id, meta.cwd, meta.model, meta.version, meta.started) == (
        "019b64e5-57fa-7463-b644-fba7e456f905",
        "/Users/macmini/Code/homelab-migration",
        "gpt-5.2-codex",
        "0.77.0",
        "2025-12-28T12:18:30.522Z",
    )


def test_codex_reparse_gives_identical_ids() -> None:
    first, second = parse_file(VSCODE), parse_file(VSCODE)

    assert first == second
    assert len({m.message_id for m in first}) == len(first)


def test_codex_ids_do_not_depend_on_where_reading_started() -> None:
    lines = VSCODE.read_bytes().splitlines()
    whole = {m.message_id: m for m in parse_lines(lines)}
    fresh = CodexParser()
    fresh.prime(lines[0])

    resumed = parse_lines(lines[40:], fresh)

    assert resumed and all(whole[m.message_id] == m for m in resumed)


def test_codex_session_id_comes_from_the_rollout_name(tmp_path: Path) -> None:
    path = tmp_path / ROLLOUT_NAME
    shutil.copy(VSCODE, path)
    lines = path.read_bytes().splitlines()

    resumed = parse_lines(lines[3:], CodexParser.for_path(path))  # session_meta not seen

    assert {m.session_id for m in resumed} == {"01996135-afde-7911-97f0-d863511eca56"}


def test_codex_ordinal_names_the_message_when_present() -> None:
    record = json.loads(VSCODE.read_bytes().splitlines()[3])
    record["ordinal"] = 7

    (message,) = CodexParser(session_id="s").feed(json.dumps(record).encode())

    assert message.message_id == "o7"


def test_codex_tagged_injected_user_event_is_skipped() -> None:
    payload = {"type": "user_message", "message": "be careful", "kind": "user_instructions"}
    record = {"timestamp": "2025-10-01T00:00:00Z", "type": "event_msg", "payload": payload}

    assert CodexParser(session_id="s").feed(json.dumps(record).encode()) == []


def test_codex_unknown_and_malformed_lines_are_skipped() -> None:
    parser = CodexParser(session_id="s")
    lines = [
        b'{"timestamp":"2026-01-01T00:00:00Z","type":"world_state","payload":{"x":1}}',
        b'{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"ghost_snapshot"}}',
        b'{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":"not an object"}',
        b"{broken",
    ]

    assert parse_lines(lines, parser) == []
    assert parser.malformed_lines == 1


def test_codex_bare_layout_reads_response_items() -> None:
    lines = [
        b'{"id":"0198aaaa-0000-7000-8000-000000000000","timestamp":"2025-07-01T10:00:00Z","instructions":null}',
        b'{"record_type":"state"}',
        b'{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x'
        b'</environment_context>"}]}',
        b'{"type":"message","role":"user","content":[{"type":"input_text","text":"rename the module"}]}',
        b'{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}',
    ]

    messages = parse_lines(lines)

    assert [(m.role, m.text, m.message_id) for m in messages] == [
        ("user", "rename the module", "L3/user"),
        ("assistant", "Done.", "L4/assistant"),
    ]
    assert {m.session_id for m in messages} == {"0198aaaa-0000-7000-8000-000000000000"}


def test_codex_compressed_rollout_gives_the_same_messages(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    archive = tmp_path / ROLLOUT_NAME.replace(".jsonl", ".jsonl.zst")
    archive.write_bytes(zstandard.ZstdCompressor(level=3).compress(VSCODE.read_bytes()))

    with open_rollout(archive) as handle:
        inflated = [line.rstrip(b"\n") for line in handle]

    assert parse_lines(inflated, CodexParser.for_path(archive)) == parse_file(VSCODE)


def test_codex_compressed_rollout_without_decoder_raises_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / ROLLOUT_NAME.replace(".jsonl", ".jsonl.zst")
    archive.write_bytes(b"\x28\xb5\x2f\xfd")
    monkeypatch.setitem(sys.modules, "zstandard", None)  # None makes the import fail
    monkeypatch.setitem(sys.modules, "compression.zstd", None)

    with pytest.raises(ExtractError, match="zstandard"):
        open_rollout(archive)


def test_codex_plain_rollout_opens_as_is() -> None:
    with open_rollout(VSCODE) as handle:
        assert handle.read() == VSCODE.read_bytes()


def test_a_long_command_keeps_every_commit_past_the_marker_cut() -> None:
    """Found on the fresh halves: the second commit of a chained command lay past the 160 characters a marker keeps."""
    command = (
        "git checkout feat/eks-1.30 && git reset --soft HEAD~1 && git reset -q && git add live/staging && "
        "git commit -qm 'feat(staging): eks 1.30 and module v3.9.0' && git add live/prod && "
        "git commit -qm 'feat(prod): eks 1.30 and module v3.9.0' && git log --oneline -3"
    )
    marker = tool_marker("shell", {"command": ["bash", "-lc", command]})
    assert "git commit -qm 'feat(staging): eks 1.30 and module v3.9.0'" in marker
    assert "git commit -qm 'feat(prod): eks 1.30 and module v3.9.0'" in marker
    assert "git log" not in marker and marker.endswith(" …")
    assert tool_marker("shell", {"command": "x" * 300}) == "shell: " + "x" * 160 + " …"  # no commit: cut as before


@pytest.mark.parametrize(
    "output",
    [
        "[main 1a2b3c4] feat: add relay\n 2 files changed, 40 insertions(+)",
        json.dumps({"output": "[main 1a2b3c4] feat: add relay\n", "metadata": {"exit_code": 0}}),
    ],
    ids=["text", "json"],
)
def test_codex_commit_a_call_output_shows_becomes_a_marker_with_its_hash(output: str) -> None:
    call = {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": '{"command": ["git", "commit"]}'}
    lines = [
        json.dumps({"timestamp": "2026-12-01T09:00:00Z", "type": "response_item", "payload": call}).encode(),
        json.dumps(
            {
                "timestamp": "2026-12-01T09:00:01Z",
                "type": "response_item",
                "payload": {"type": "function_call_output", "call_id": "c1", "output": output},
            }
        ).encode(),
    ]
    tools = {m.message_id: m.text for m in by_role(parse_lines(lines), "tool")}
    assert tools["c1/commit"] == "git-commit: [main 1a2b3c4] feat: add relay"
