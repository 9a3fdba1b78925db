"""Candidate insights from a coding agent the person already has, run headless (``model.agent``).

``AgentClient`` keeps ``ChatClient``'s contract, so the insight step asks
either one the same way (``chat.ChatModel``):

- a private project is never given to an agent: every agent sends what it
  reads to its vendor;
- today's token budget must pay for a run before it starts; the tokens
  counted are the CLI's own figures when it reports them, else estimated as
  ``chat`` estimates them;
- every run leaves a receipt (endpoint ``agent:<name>``) whatever came of it:
  an answer, a missing executable, a non-zero exit, a timeout;
- a reply ``parse`` refuses is asked for once more at once, with the reason
  added; a second refusal is raised, and the source waits for a later retry.

A run works in ``<home>/agent-runs/<agent>``, a folder with no AGENTS.md,
CLAUDE.md or GEMINI.md whose transcripts the session readers skip, in a
process session of its own, so that a run still going after
``model.agent_timeout_seconds`` is killed with every child it started. The
flags of each CLI are in ``agent_commands``.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TypeVar

import apsw

from incremind_daemon.config import Settings, private_projects
from incremind_daemon.errors import ConfigError, IncremindError
from incremind_daemon.pipeline.agent_commands import AGENT_CLIS, AgentAnswer, AgentCli
from incremind_daemon.pipeline.chat import (
    ChatMessage,
    ChatReply,
    DailyBudget,
    EndpointError,
    ModelReplyError,
    PrivateProjectError,
    TokenUsage,
    estimate_prompt_tokens,
    estimate_tokens,
    record_call,
)
from incremind_daemon.private import make_private_folders
from incremind_daemon.store import clock as wall_clock
from incremind_daemon.store import receipts
from incremind_daemon.store.receipts import BudgetState, Receipt

log = logging.getLogger(__name__)

T = TypeVar("T")

ATTEMPTS = 2  # a malformed reply is asked for once more, at once
_STDERR_TAIL = 300
_REAP_SECONDS = 5.0


class AgentUnavailable(EndpointError):
    """The agent's executable is missing or cannot be started."""


class AgentFailed(EndpointError):
    """The agent ran but failed: a non-zero exit, an error it reported, or no answer in time."""


@dataclass(frozen=True, slots=True)
class Finished:
    """A headless run that ended by itself."""

    returncode: int
    stdout: str
    stderr: str


def make_agent_client(settings: Settings, conn: apsw.Connection) -> AgentClient | None:
    """Return a client for the chosen agent writing receipts through ``conn``, or None when none is chosen."""
    if settings.model.agent is None:
        return None
    return AgentClient(
        settings,
        record=functools.partial(receipts.record_receipt, conn),
        spent=functools.partial(receipts.tokens_spent, conn),
    )


def find_executable(name: str, command: str | None = None) -> str | None:
    """Return the agent's executable: ``command`` if it is one, else ``name`` looked up on PATH."""
    if command:
        found = shutil.which(command)
        if found is not None:
            return found
    return shutil.which(name)


class AgentClient:
    """Ask a coding agent's CLI, run headless, with the guards described in this module.

    ``record`` and ``spent`` are those of ``ChatClient``. Not thread-safe: one
    client per thread, like the connection behind it.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        record: Callable[[Receipt], object],
        spent: Callable[[date], int],
        clock: Callable[[], datetime] = wall_clock.now,
    ) -> None:
        model = settings.model
        if model.agent is None or model.agent not in AGENT_CLIS:
            raise ConfigError("model.agent must be claude, codex or gemini; run incremind model use-agent")
        self.cli: AgentCli = AGENT_CLIS[model.agent]
        self.endpoint = f"agent:{self.cli.name}"
        self.max_input_chars = model.max_input_chars
        self.folder = settings.agent_runs_dir / self.cli.name
        self._command = model.agent_command
        self._timeout = model.agent_timeout_seconds
        self._budget = DailyBudget(model.daily_token_budget, spent, clock)
        self._settings = settings
        self._record = record
        self._clock = clock

    def may_send(self, project: str, *, private: bool = False) -> bool:
        """Tell whether text of this project may go to the agent (never a private project's)."""
        return not (private or project in private_projects(self._settings))

    def check_private(self, project: str, *, private: bool = False) -> None:
        """Raise PrivateProjectError unless text of this project may go to the agent."""
        if not self.may_send(project, private=private):
            raise PrivateProjectError(
                f"project {project!r} is private, so its text is not given to {self.endpoint}, which sends what "
                "it reads off this machine; take the project off private_projects to allow it"
            )

    def budget(self) -> BudgetState:
        """Today's (UTC) spending against the daily token budget."""
        return self._budget.state()

    def check_budget(self, tokens: int) -> BudgetState:
        """Raise BudgetExhausted unless ``tokens`` more fit in today's budget."""
        return self._budget.require(tokens)

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        parse: Callable[[str], T],
        purpose: str,
        project: str,
        source_id: int | None = None,
        private: bool = False,
        reserve_output_tokens: int = 1_024,
    ) -> ChatReply[T]:
        """Run the agent on messages, then turn its answer into a value with ``parse``.

        Raises PrivateProjectError or BudgetExhausted (nothing run, no
        receipt), AgentUnavailable, AgentFailed, or ModelReplyError after
        the second malformed reply.
        """
        self.check_private(project, private=private)
        asked = list(messages)
        for attempt in range(1, ATTEMPTS + 1):
            self.check_budget(estimate_prompt_tokens(asked) + reserve_output_tokens)
            try:
                return self._run(asked, parse, attempt=attempt, purpose=purpose, project=project, source_id=source_id)
            except ModelReplyError as exc:
                if attempt == ATTEMPTS:
                    raise
                log.info("%s gave a reply that cannot be used, asking once more: %s", self.endpoint, exc)
                asked = with_retry_note(messages, exc)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def close(self) -> None:
        """Nothing stays open between runs."""

    def _run(
        self,
        messages: Sequence[ChatMessage],
        parse: Callable[[str], T],
        *,
        attempt: int,
        purpose: str,
        project: str,
        source_id: int | None,
    ) -> ChatReply[T]:
        at = self._clock().astimezone(UTC).isoformat(timespec="milliseconds")
        started = time.monotonic()
        outcome = "error: interrupted"
        usage = TokenUsage(0, 0, estimated=False)
        model = self.cli.name
        notes = [f"attempt {attempt} of {ATTEMPTS}"] if attempt > 1 else []
        try:
            executable = self._executable()
            notes.append(executable)
            invocation = self.cli.invoke(executable, self.folder, *_split(messages))
            self._prepare_folder()
            try:
                finished = run_headless(
                    invocation.argv,
                    stdin=invocation.stdin,
                    env={**os.environ, **invocation.env},
                    cwd=self.folder,
                    timeout=self._timeout,
                )
            except AgentFailed:  # timed out: the prompt was sent and may well have been billed
                usage = TokenUsage(estimate_prompt_tokens(messages), 0, estimated=True)
                raise
            answer = self.cli.read(finished.stdout)
            model = answer.model or model
            usage = answer.usage or _estimated(messages, answer, finished)
            text = self._answer_text(finished, answer)
            value = parse(text)
            outcome = "ok"
        except Exception as exc:
            outcome = f"error: {exc}" if isinstance(exc, IncremindError) else f"error: {type(exc).__name__}: {exc}"
            raise
        finally:
            duration_ms = round((time.monotonic() - started) * 1000)
            if usage.estimated:
                notes.append("tokens estimated (the CLI reported no usage)")
            receipt = Receipt(
                at=at,
                purpose=purpose,
                endpoint=self.endpoint,
                model=model,
                project=project,
                outcome=outcome,
                source_id=source_id,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                duration_ms=duration_ms,
                detail="; ".join(notes),
            )
            record_call(self._record, receipt)
        return ChatReply(value, text, usage, duration_ms, attempt)

    def _executable(self) -> str:
        found = find_executable(self.cli.name, self._command)
        if found is None:
            where = f"model.agent_command {self._command!r} is not one, and " if self._command else ""
            raise AgentUnavailable(
                f"{self.cli.name} was not found ({where}it is not on the daemon's PATH); "
                f"{self.cli.install_hint}, then run incremind model use-agent {self.cli.name}, "
                "or turn the agent off with incremind model use-agent off"
            )
        return found

    def _prepare_folder(self) -> None:
        make_private_folders(self.folder)
        self.cli.prepare(self.folder)

    def _answer_text(self, finished: Finished, answer: AgentAnswer) -> str:
        if finished.returncode != 0 or answer.error is not None:
            why = answer.error or _tail(finished.stderr) or "no message"
            raise AgentFailed(
                f"{self.cli.name} exited with status {finished.returncode}: {why}"
                if finished.returncode != 0
                else f"{self.cli.name} reported an error: {why}"
            )
        if answer.text is None:
            shown = _tail(finished.stdout) or "nothing"
            raise ModelReplyError(f"{self.cli.name} ran but printed no answer it can be read from ({shown!r})")
        return answer.text


def run_headless(argv: Sequence[str], *, stdin: str, env: dict[str, str], cwd: Path, timeout: float) -> Finished:
    """Run argv with stdin, in a new process session, and wait at most ``timeout`` seconds.

    On timeout the whole session (the agent and every child it started) is
    killed and AgentFailed raised; a command that cannot be started raises
    AgentUnavailable.
    """
    try:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise AgentUnavailable(f"could not start {argv[0]}: {exc.strerror or exc}") from exc
    try:
        out, err = process.communicate(stdin.encode("utf-8"), timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        raise AgentFailed(
            f"{Path(argv[0]).name} gave no answer within {timeout:g} s and was stopped; "
            "raise model.agent_timeout_seconds if it needs longer"
        ) from None
    except BaseException:
        _kill(process)
        raise
    return Finished(process.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def with_retry_note(messages: Sequence[ChatMessage], problem: Exception) -> list[ChatMessage]:
    """The same request, its last message telling why the previous answer could not be used."""
    note = (
        f"\n\nYour previous answer could not be used: {str(problem)[:300]}. "
        "Answer again with the one JSON object asked for, and nothing else."
    )
    last = messages[-1]
    return [*messages[:-1], ChatMessage(last.role, last.content + note)]


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Kill the run's process session and reap the run; its pipes are closed either way."""
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    try:
        process.communicate(timeout=_REAP_SECONDS)
    except subprocess.TimeoutExpired:  # a child that left the session still holds a pipe
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        process.wait(_REAP_SECONDS)


def _split(messages: Sequence[ChatMessage]) -> tuple[str, str]:
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    rest = "\n\n".join(m.content for m in messages if m.role != "system")
    return system, rest


def _estimated(messages: Sequence[ChatMessage], answer: AgentAnswer, finished: Finished) -> TokenUsage:
    said = answer.text if answer.text is not None else finished.stdout
    return TokenUsage(estimate_prompt_tokens(messages), estimate_tokens(said), estimated=True)


def _tail(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-3:])[-_STDERR_TAIL:]
