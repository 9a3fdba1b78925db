"""Candidate insights from a chat model: only what new material adds to what is known.

The model is shown the material, redacted and cut into parts of at most
``model.max_input_chars``, together with the known insights it is to be
compared with, and answers with JSON. A candidate counts only if its quote is
found word for word in the original material (whitespace aside) and outside
every credential; its offsets index that original, so
``text[start:end] == quote``. Other candidates are rejected and reported.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from incremind_daemon.pipeline.chat import ChatMessage, ChatModel, ModelReplyError, estimate_prompt_tokens
from incremind_daemon.pipeline.organize import split_passages
from incremind_daemon.pipeline.redact import MARKER_PREFIX, SecretSpan, find_secrets, redact
from incremind_daemon.store.records import CATEGORIES, RELATIONS, Candidate

log = logging.getLogger(__name__)

PURPOSE = "insights"
_TOKENS_PER_CANDIDATE = 160  # output reserved per asked-for candidate when checking the budget
_MIN_QUOTE_CHARS = 4  # non-space characters; anything shorter is found everywhere and proves nothing
_KNOWN_STATEMENT_CHARS = 400
_THINKING = re.compile(r"\A\s*<think>.*?</think>", re.DOTALL)  # reasoning models served locally
_FENCE = re.compile(r"\A\s*```[A-Za-z]*[ \t]*\n(?P<body>.*?)\n?```\s*\Z", re.DOTALL)

SYSTEM_PROMPT = """\
You keep a person's long-term memory. From the NEW MATERIAL, propose only what it adds to the KNOWN INSIGHTS:
- "new": a method, fact, preference or decision that no known insight covers;
- "supplement": a new condition, step, exception or example for something a known insight already says;
- "supersedes": a newer statement that changes a known insight (a changed decision or value: "switch to", \
"from now on", "not X but Y");
- "different": a claim that disagrees with a known insight with no order between them (someone else's view).
Leave out whatever a known insight already says, even in other words or another language, whatever is \
trivial, passing or only about the task at hand (requests, questions, plans for today), and anything in \
pasted logs, tracebacks, code or quoted text.

Each candidate has:
- "statement": one self-contained sentence that stays true out of context, in the language of the material;
- "category": one of identity (who the person is), preference (what they like or want, how to talk to them), \
correction (a mistake and what is right instead, both values in the statement), decision (a choice made, a change \
of plan), entity (a fact about a named thing: a port, path, version, person, tool), event (something that \
happened), method (how to do something);
- "scope": "global" (who the person is, how to talk to them, habits in every project) or "project";
- "condition": when this should be recalled, as a short phrase ("" if always);
- "quote": the shortest passage of the NEW MATERIAL that supports the statement, copied character for character: \
no paraphrase, translation, ellipsis or joining of separate places, and never text marked [REDACTED:...];
- "relation_hint": "new", "supplement", "supersedes" or "different";
- "known_id": the id of the known insight it supplements, supersedes or differs from, otherwise null.

Answer with one JSON object and nothing else: {{"candidates": [...]}} with at most {limit} candidates, \
or {{"candidates": []}} if the material adds nothing."""


class KnownInsight(Protocol):
    """What the model is shown of a known insight (``store.records.Insight`` fits)."""

    @property
    def id(self) -> int: ...
    @property
    def project(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def statement(self) -> str: ...
    @property
    def condition(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Proposal:
    """One candidate as the model wrote it, before its quote is checked."""

    statement: str
    category: str
    condition: str
    quote: str
    relation_hint: str | None
    known_id: int | str | None
    scope: str = "project"  # global or project, as the model judged it


@dataclass(frozen=True, slots=True)
class ModelCandidate:
    candidate: Candidate
    relation_hint: str | None  # one of RELATIONS as the model judged it; only a hint, relating decides
    known_id: int | None  # a known insight the model was shown and related this one to


@dataclass(frozen=True, slots=True)
class RejectedProposal:
    statement: str
    quote: str
    reason: str


@dataclass(frozen=True, slots=True)
class ModelExtraction:
    candidates: tuple[ModelCandidate, ...]
    rejected: tuple[RejectedProposal, ...]  # proposals dropped for a bad quote or category
    calls: int
    input_tokens: int
    output_tokens: int


def extract_with_model(
    client: ChatModel,
    *,
    text: str,
    known: Sequence[KnownInsight],
    project: str,
    source_id: int | None = None,
    private: bool = False,
    max_candidates: int = 12,
) -> ModelExtraction:
    """Ask the model what ``text`` adds to ``known``, keeping only candidates with verbatim quotes.

    Raises PrivateProjectError or BudgetExhausted before anything is sent
    (the budget must cover every part of the material, or no call is made),
    and EndpointError or ModelReplyError when a call fails; each call made
    has left its receipt by then.
    """
    client.check_private(project, private=private)
    # insights of another private project never travel with this one's material
    shown = [insight for insight in known if client.may_send(insight.project)]
    parts = [passage.text for passage in split_passages(redact(text), max_chars=client.max_input_chars, overlap=0)]
    if not parts:
        return ModelExtraction((), (), 0, 0, 0)
    requests = [
        build_messages(part, shown, part=n, parts=len(parts), limit=max_candidates) for n, part in enumerate(parts, 1)
    ]
    reserve = _TOKENS_PER_CANDIDATE * max_candidates
    client.check_budget(sum(estimate_prompt_tokens(messages) + reserve for messages in requests))

    proposals: list[Proposal] = []
    input_tokens = output_tokens = 0
    for messages in requests:
        reply = client.complete(
            messages,
            parse=parse_reply,
            purpose=PURPOSE,
            project=project,
            source_id=source_id,
            private=private,
            reserve_output_tokens=reserve,
        )
        proposals.extend(reply.value)
        input_tokens += reply.usage.input_tokens
        output_tokens += reply.usage.output_tokens

    candidates, rejected = check_proposals(proposals, text, known_ids={insight.id for insight in shown})
    if len(candidates) > max_candidates:
        log.info("the model proposed %d candidates; keeping the first %d", len(candidates), max_candidates)
    if rejected:
        log.info("rejected %d of %d model proposals: %s", len(rejected), len(proposals), rejected[0].reason)
    return ModelExtraction(
        tuple(candidates[:max_candidates]), tuple(rejected), len(requests), input_tokens, output_tokens
    )


def build_messages(
    material: str, known: Sequence[KnownInsight], *, part: int = 1, parts: int = 1, limit: int = 12
) -> list[ChatMessage]:
    """The system and user messages asking for the increments of one part of the material."""
    lines = [
        json.dumps(
            {
                "id": insight.id,
                "category": insight.category,
                "statement": redact(insight.statement)[:_KNOWN_STATEMENT_CHARS],
                "condition": redact(insight.condition)[:_KNOWN_STATEMENT_CHARS],
            },
            ensure_ascii=False,
        )
        for insight in known
    ]
    known_block = "\n".join(lines) if lines else "(none yet)"
    which = f" (part {part} of {parts})" if parts > 1 else ""
    user = (
        f"KNOWN INSIGHTS, one JSON object per line:\n{known_block}\n\n"
        f"NEW MATERIAL{which}, between the markers:\n<<<MATERIAL\n{material}\nMATERIAL>>>"
    )
    return [ChatMessage("system", SYSTEM_PROMPT.format(limit=limit)), ChatMessage("user", user)]


class _ReplyCandidate(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    statement: str
    category: str
    quote: str
    condition: str | None = None
    scope: str | None = None
    relation_hint: str | None = None
    known_id: int | str | None = None


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    candidates: list[_ReplyCandidate]


def parse_reply(content: str) -> tuple[Proposal, ...]:
    """Read the model's JSON answer; anything but ``{"candidates": [...]}`` raises ModelReplyError.

    A code fence around the JSON, and a leading ``<think>`` block, are allowed.
    """
    body = _THINKING.sub("", content, count=1).strip()
    if fenced := _FENCE.match(body):
        body = fenced.group("body").strip()
    try:
        data: object = json.loads(body)
    except ValueError as exc:
        raise ModelReplyError(f"the model's reply is not JSON ({exc}); it begins {_preview(body)}") from exc
    try:
        reply = _Reply.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the top level"
        raise ModelReplyError(
            f"the model's reply does not have the asked-for shape ({where}: {first['msg']}); it begins {_preview(body)}"
        ) from exc
    return tuple(
        Proposal(
            statement=item.statement.strip(),
            category=item.category.strip().lower(),
            condition=(item.condition or "").strip(),
            scope="global" if (item.scope or "").strip().lower() == "global" else "project",
            quote=item.quote,
            relation_hint=item.relation_hint.strip().lower() if item.relation_hint else None,
            known_id=item.known_id,
        )
        for item in reply.candidates
    )


def check_proposals(
    proposals: Sequence[Proposal], text: str, *, known_ids: set[int]
) -> tuple[list[ModelCandidate], list[RejectedProposal]]:
    """Keep the proposals whose category is known and whose quote is in ``text``; reject the rest."""
    secrets = find_secrets(text)
    kept: list[ModelCandidate] = []
    rejected: list[RejectedProposal] = []
    seen: set[str] = set()
    for proposal in proposals:
        if not proposal.statement:
            reason = "the statement is empty"
        elif proposal.category not in CATEGORIES:
            reason = f"unknown category {proposal.category!r}"
        else:
            found = locate_quote(text, proposal.quote, secrets)
            if isinstance(found, str):
                reason = found
            else:
                if proposal.statement.casefold() not in seen:  # else the same statement came from two parts
                    seen.add(proposal.statement.casefold())
                    kept.append(_candidate(proposal, text, found, known_ids))
                continue
        rejected.append(RejectedProposal(proposal.statement, proposal.quote, reason))
    return kept, rejected


def locate_quote(text: str, quote: str, secrets: Sequence[SecretSpan] = ()) -> tuple[int, int] | str:
    """Find quote in text, exactly or else with whitespace ignored; return its span or why not.

    A quote overlapping a credential span is never evidence: the model was
    shown a marker there, not the words.
    """
    wanted = quote.strip()
    letters = [char for char in wanted if not char.isspace()]
    if MARKER_PREFIX in wanted:
        return "the quote contains a redacted credential"
    if len(letters) < _MIN_QUOTE_CHARS:
        return f"the quote {wanted!r} is too short to be evidence"
    spans = [(m.start(), m.end()) for m in re.finditer(re.escape(wanted), text)]
    if not spans:
        loose = r"\s*".join(re.escape(char) for char in letters)
        spans = [(m.start(), m.end()) for m in re.finditer(loose, text)]
    if not spans:
        return "the quote is not found verbatim in the material"
    for start, end in spans:
        if not any(secret.start < end and start < secret.end for secret in secrets):
            return start, end
    return "the quote overlaps a credential"


def _candidate(proposal: Proposal, text: str, span: tuple[int, int], known_ids: set[int]) -> ModelCandidate:
    start, end = span
    candidate = Candidate(
        proposal.statement, proposal.category, proposal.condition, text[start:end], start, end, proposal.scope
    )
    relation = proposal.relation_hint if proposal.relation_hint in RELATIONS else None
    return ModelCandidate(candidate, relation, _known_id(proposal.known_id, known_ids))


def _known_id(value: int | str | None, known_ids: set[int]) -> int | None:
    if isinstance(value, str):
        digits = value.strip().removeprefix("ins-")
        value = int(digits) if digits.isascii() and digits.isdigit() else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value in known_ids else None


def _preview(text: str) -> str:
    return repr(text[:80]) if text else "empty"
