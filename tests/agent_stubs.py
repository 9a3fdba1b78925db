"""Stand-ins for the coding agents' CLIs: executables on PATH that answer like the real ones.

    stub = install_agent_stub("claude", tmp_path, monkeypatch)
    stub.script(candidates({"statement": ..., "category": ..., "quote": ...}))
    ...  # the daemon runs `claude -p ...`; stub.calls() says what it was given

Each stub is a small Python script. It records every call (argv, working
folder, stdin, a few environment variables, its pid) in ``calls.jsonl``, takes
the next scripted reply, and prints it shaped as the real CLI prints it:
Claude Code's ``--output-format json`` result object, Codex's ``exec --json``
event lines, Gemini CLI's ``--output-format json`` object (pretty-printed, as
Gemini prints it). With no reply left it fails with exit status 3.

A reply may ``sleep`` (after starting a child of its own, to show the whole
process session is stopped), ``exit`` with a status, report an ``error``, or
leave a ``transcript`` in the agent's session folder as a version that keeps
headless sessions would. Gemini always keeps its chat, as the real one does.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

_STUB = r"""#!{python}
import hashlib, json, os, subprocess, sys, time, uuid

AGENT = {agent!r}
STATE = {state!r}
WATCHED = ("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "CLAUDE_CODE_DISABLE_AUTO_MEMORY", "GEMINI_CLI_TRUST_WORKSPACE", "HOME")


def record(entry):
    with open(os.path.join(STATE, "calls.jsonl"), "a", encoding="utf-8") as out:
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")


def next_reply():
    path = os.path.join(STATE, "replies.json")
    with open(path, encoding="utf-8") as handle:
        replies = json.load(handle)
    reply = replies.pop(0) if replies else {{"error": "agent stub: no reply scripted", "exit": 3}}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(replies, handle)
    return reply


def keep_claude_transcript(prompt, answer):
    cwd = os.getcwd()
    session = str(uuid.uuid4())
    folder = os.path.join(os.environ["HOME"], ".claude", "projects", "".join(c if c.isalnum() else "-" for c in cwd))
    os.makedirs(folder, exist_ok=True)
    base = {{"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session,
            "version": "2.1.38", "gitBranch": "", "timestamp": "2026-11-30T10:00:00.000Z"}}
    lines = [
        dict(base, type="user", uuid=str(uuid.uuid4()), message={{"role": "user", "content": prompt}}),
        dict(base, type="assistant", uuid=str(uuid.uuid4()), message={{"id": "msg_stub", "type": "message",
             "role": "assistant", "model": "claude-sonnet-4-5", "content": [{{"type": "text", "text": answer}}]}}),
    ]
    with open(os.path.join(folder, session + ".jsonl"), "w", encoding="utf-8") as out:
        out.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def keep_gemini_chat(prompt, answer):
    cwd = os.getcwd()
    slug = "".join(c if c.isalnum() else "-" for c in os.path.basename(cwd).lower()).strip("-") or "project"
    folder = os.path.join(os.environ["HOME"], ".gemini", "tmp", slug)
    os.makedirs(os.path.join(folder, "chats"), exist_ok=True)
    with open(os.path.join(folder, ".project_root"), "w", encoding="utf-8") as out:
        out.write(cwd)
    session = str(uuid.uuid4())
    records = [
        {{"sessionId": session, "projectHash": hashlib.sha256(cwd.encode()).hexdigest(),
          "startTime": "2026-11-30T10:00:00.000Z", "lastUpdated": "2026-11-30T10:00:01.000Z", "kind": "main"}},
        {{"id": str(uuid.uuid4()), "timestamp": "2026-11-30T10:00:00.000Z", "type": "user", "content": prompt}},
        {{"id": str(uuid.uuid4()), "timestamp": "2026-11-30T10:00:01.000Z", "type": "gemini", "content": answer,
          "model": "gemini-2.5-pro"}},
    ]
    name = "session-2026-11-30T10-00-" + session[:8] + ".jsonl"
    with open(os.path.join(folder, "chats", name), "w", encoding="utf-8") as out:
        out.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def claude_output(reply):
    failed = "error" in reply
    result = {{
        "type": "result", "subtype": "success", "is_error": failed, "duration_ms": 2310, "duration_api_ms": 2188,
        "num_turns": 1, "result": reply["error"] if failed else reply["text"], "stop_reason": "end_turn",
        "session_id": str(uuid.uuid4()), "total_cost_usd": 0.0131,
        "usage": {{"input_tokens": 12, "cache_creation_input_tokens": 3000, "cache_read_input_tokens": 0,
                   "output_tokens": 150, "server_tool_use": {{"web_search_requests": 0, "web_fetch_requests": 0}},
                   "service_tier": "standard"}},
        "modelUsage": {{"claude-sonnet-4-5-20250929": {{"inputTokens": 12, "outputTokens": 150,
                        "cacheReadInputTokens": 0, "cacheCreationInputTokens": 3000, "webSearchRequests": 0,
                        "costUSD": 0.0131, "contextWindow": 200000}}}},
        "permission_denials": [], "uuid": str(uuid.uuid4()),
    }}
    return json.dumps(result, ensure_ascii=False) + "\n"


def codex_output(reply):
    events = [
        {{"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"}},
        {{"type": "turn.started"}},
        {{"type": "item.completed",
          "item": {{"id": "item_0", "type": "reasoning", "text": "**Reading the material**"}}}},
    ]
    if "error" in reply:
        events.append({{"type": "error", "message": reply["error"]}})
        events.append({{"type": "turn.failed", "error": {{"message": reply["error"]}}}})
    else:
        message = {{"id": "item_1", "type": "agent_message", "text": reply["text"]}}
        events.append({{"type": "item.completed", "item": message}})
        events.append({{"type": "turn.completed", "usage": {{"input_tokens": 8123, "cached_input_tokens": 3072,
                       "output_tokens": 211}}}})
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events)


def gemini_output(reply):
    body = {{"session_id": str(uuid.uuid4())}}
    if "error" in reply:
        body["error"] = {{"type": "Error", "message": reply["error"], "code": 1}}
    else:
        body["response"] = reply["text"]
        body["stats"] = {{
            "models": {{"gemini-2.5-pro": {{"api": {{"totalRequests": 1, "totalErrors": 0, "totalLatencyMs": 4012}},
                        "tokens": {{"input": 9020, "prompt": 9020, "candidates": 180, "total": 9350, "cached": 0,
                                    "thoughts": 150, "tool": 0}}}}}},
            "tools": {{"totalCalls": 0, "totalSuccess": 0, "totalFail": 0, "totalDurationMs": 0,
                       "totalDecisions": {{"accept": 0, "reject": 0, "modify": 0, "auto_accept": 0}}, "byName": {{}}}},
            "files": {{"totalLinesAdded": 0, "totalLinesRemoved": 0}},
        }}
    return json.dumps(body, ensure_ascii=False, indent=2) + "\n"


def main():
    stdin = sys.stdin.read()
    record({{"argv": sys.argv[1:], "cwd": os.getcwd(), "stdin": stdin, "pid": os.getpid(),
            "env": {{name: os.environ.get(name) for name in WATCHED}}}})
    reply = next_reply()
    if reply.get("sleep"):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        with open(os.path.join(STATE, "sleeping.json"), "w", encoding="utf-8") as out:
            json.dump({{"pid": os.getpid(), "child": child.pid}}, out)
        time.sleep(reply["sleep"])
    answer = reply.get("text", "")
    if AGENT == "gemini":
        keep_gemini_chat(stdin, answer)
    elif reply.get("transcript"):
        keep_claude_transcript(stdin, answer)
    sys.stdout.write({{"claude": claude_output, "codex": codex_output, "gemini": gemini_output}}[AGENT](reply))
    if reply.get("stderr"):
        sys.stderr.write(reply["stderr"] + "\n")
    sys.exit(reply.get("exit", 0))


main()
"""


@dataclass
class AgentStub:
    """One installed stub: where it lives, what it was asked, what it has left to answer."""

    agent: str
    executable: Path
    state: Path

    def script(self, *replies: dict[str, object]) -> None:
        path = self.state / "replies.json"
        queued = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps([*queued, *replies], ensure_ascii=False), encoding="utf-8")

    def calls(self) -> list[dict[str, object]]:
        path = self.state / "calls.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    def sleeping(self) -> dict[str, int]:
        """The pids of a sleeping run and of the child it started."""
        found: dict[str, int] = json.loads((self.state / "sleeping.json").read_text(encoding="utf-8"))
        return found


def install_agent_stub(agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentStub:
    """Write a stub named like the agent's CLI into tmp_path/bin and put that folder first on PATH."""
    bin_dir = tmp_path / "bin"
    state = tmp_path / f"{agent}-stub"
    bin_dir.mkdir(exist_ok=True)
    state.mkdir()
    (state / "replies.json").write_text("[]", encoding="utf-8")
    executable = bin_dir / agent
    executable.write_text(_STUB.format(python=sys.executable, agent=agent, state=str(state)), encoding="utf-8")
    executable.chmod(executable.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    if str(bin_dir) not in os.environ.get("PATH", "").split(os.pathsep):
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return AgentStub(agent, executable, state)


def answer(text: str, **extra: object) -> dict[str, object]:
    """A reply whose final message is text."""
    return {"text": text, **extra}


def candidates(*found: Mapping[str, object], **extra: object) -> dict[str, object]:
    """A reply whose final message is ``{"candidates": [...]}``."""
    return answer(json.dumps({"candidates": [dict(c) for c in found]}, ensure_ascii=False), **extra)
