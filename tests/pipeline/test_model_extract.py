from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import apsw
import pytest

from incremind_daemon.config import Settings, load_settings
from incremind_daemon.pipeline.chat import (
    BudgetExhausted,
    ChatClient,
    EndpointError,
    ModelReplyError,
    PrivateProjectError,
    estimate_prompt_tokens,
)
from incremind_daemon.pipeline.model_extract import (
    ModelExtraction,
    build_messages,
    check_proposals,
    extract_with_model,
    locate_quote,
    parse_reply,
)
from incremind_daemon.pipeline.organize import split_passages
from incremind_daemon.store.db import connect
from incremind_daemon.store.receipts import Receipt, list_receipts, record_receipt, tokens_spent
from tests.chat_stub import ChatStub, Reply, RouteTo, candidates_reply, completion

NOON = datetime(2025, 3, 2, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Known:
    id: int
    project: str
    category: str
    statement: str
    condition: str


@dataclass(frozen=True)
class Example:
    """The spaced-repetition example of issue 5 in one language."""

    known: Known
    article: str
    different: dict[str, object]  # the model's candidates, as the stub returns them
    new_method: dict[str, object]
    fabricated: dict[str, object]


EXAMPLES = {
    "en": Example(
        known=Known(1, "study", "method", "Review on days 1, 2, 4, 7, 15 after learning.", "when memorising facts"),
        article=(
            "Active recall and adaptive intervals\n\n"
            "Spaced repetition beats cramming. A fixed schedule helps, but fixed intervals are too coarse; "
            "adjust the interval by how hard each card was for you.\n"
            "When you review, answer from memory before flipping the card, then check the answer.\n"
        ),
        different={
            "statement": "Fixed review intervals are too coarse; adjust each interval by difficulty.",
            "category": "method",
            "condition": "when scheduling reviews",
            "quote": "fixed intervals are too coarse; adjust the interval by how hard each card was for you",
            "relation_hint": "different",
            "known_id": 1,
        },
        new_method={
            "statement": "Answer from memory before flipping the card.",
            "category": "method",
            "condition": "when reviewing flashcards",
            "quote": "answer from memory before flipping the card",
            "relation_hint": "new",
            "known_id": None,
        },
        fabricated={
            "statement": "Sleep eight hours before an exam.",
            "category": "method",
            "condition": "before exams",
            "quote": "always sleep eight hours before an exam",
            "relation_hint": "new",
        },
    ),
    "zh": Example(
        known=Known(1, "study", "method", "学习后按第 1、2、4、7、15 天复习。", "背记知识时"),
        article=(
            "主动回忆与自适应间隔\n\n"
            "间隔重复比死记硬背有效。按固定日程复习有帮助，但固定间隔太粗糙，应该按难度调整每张卡片的间隔。\n"
            "复习时先自答再翻面，然后核对答案。\n"
        ),
        different={
            "statement": "固定间隔太粗糙，应该按难度调整复习间隔。",
            "category": "method",
            "condition": "安排复习时",
            "quote": "固定间隔太粗糙，应该按难度调整每张卡片的间隔",
            "relation_hint": "different",
            "known_id": "1",
        },
        new_method={
            "statement": "复习时先自答再翻面。",
            "category": "method",
            "condition": "用卡片复习时",
            "quote": "复习时先自答再翻面",
            "relation_hint": "new",
        },
        fabricated={
            "statement": "考试前要睡足八小时。",
            "category": "method",
            "condition": "考试前",
            "quote": "考试前一定要睡足八小时",
            "relation_hint": "new",
        },
    ),
}


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[apsw.Connection]:
    connection = connect(tmp_path / "memory.db")
    yield connection
    connection.close()


def make_client(home: Path, conn: apsw.Connection, base_url: str, **options: Any) -> ChatClient:
    private = options.pop("private_projects", [])
    transport = options.pop("transport", None)
    settings: Settings = load_settings(
        home=home / ".incremind",
        model={"base_url": base_url, "name": "stub-model", "max_retries": 1, **options},
        private_projects=private,
    )
    return ChatClient(
        settings,
        record=partial(record_receipt, conn),
        spent=partial(tokens_spent, conn),
        retry_delay=0,
        clock=lambda: NOON,
        transport=transport,
    )


@pytest.fixture
def client(private_home: Path, conn: apsw.Connection, stub: ChatStub) -> Iterator[ChatClient]:
    with make_client(private_home, conn, stub.url) as made:
        yield made


def extract(client: ChatClient, text: str, known: list[Known] | None = None, **options: Any) -> ModelExtraction:
    return extract_with_model(client, text=text, known=known or [], project="study", source_id=5, **options)


@pytest.mark.parametrize("language", sorted(EXAMPLES))
def test_article_yields_only_its_increments_and_a_fabricated_quote_is_rejected(
    client: ChatClient, stub: ChatStub, conn: apsw.Connection, language: str
) -> None:
    example = EXAMPLES[language]
    stub.script(candidates_reply(example.different, example.new_method, example.fabricated))

    result = extract(client, example.article, [example.known])

    assert [(c.candidate.statement, c.relation_hint, c.known_id) for c in result.candidates] == [
        (example.different["statement"], "different", 1),
        (example.new_method["statement"], "new", None),
    ]
    for found, asked in zip(result.candidates, (example.different, example.new_method), strict=True):
        candidate = found.candidate
        assert candidate.quote == asked["quote"]
        assert example.article[candidate.start : candidate.end] == candidate.quote
        assert (candidate.category, candidate.condition) == ("method", asked["condition"])
    [rejected] = result.rejected
    assert (rejected.quote, rejected.reason) == (
        example.fabricated["quote"],
        "the quote is not found verbatim in the material",
    )
    assert (result.calls, result.input_tokens, result.output_tokens) == (1, 120, 40)
    [sent] = stub.user_messages()
    assert example.known.statement in sent
    assert example.article.strip() in sent
    [receipt] = list_receipts(conn)
    assert (receipt.purpose, receipt.project, receipt.source_id, receipt.outcome) == ("insights", "study", 5, "ok")


@pytest.mark.parametrize("language", sorted(EXAMPLES))
def test_first_note_is_compared_with_nothing_known(client: ChatClient, stub: ChatStub, language: str) -> None:
    known = EXAMPLES[language].known
    note = f"{known.statement}\n"
    schedule = {"statement": known.statement, "category": "method", "condition": known.condition, "quote": note.strip()}
    stub.script(candidates_reply(schedule))
    result = extract(client, note)
    [found] = result.candidates
    assert (found.candidate.start, found.candidate.end, found.relation_hint) == (0, len(note.strip()), None)
    assert "(none yet)" in stub.user_messages()[0]


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("Here are the insights you asked for.", "not JSON"),
        ('{"insights": []}', r"shape \(candidates: Field required\)"),
        ('{"candidates": "none"}', r"shape \(candidates: Input should be a valid list\)"),
        ('{"candidates": [{"statement": "x", "category": "method"}]}', r"candidates\.0\.quote: Field required"),
        ('{"candidates": [{"statement": 5, "category": "method", "quote": "q"}]}', r"candidates\.0\.statement"),
        ('[{"statement": "x", "category": "method", "quote": "q"}]', "shape"),
        ("", "not JSON"),
    ],
)
def test_malformed_reply_raises_and_is_receipted_as_an_error(
    client: ChatClient, stub: ChatStub, conn: apsw.Connection, content: str, fragment: str
) -> None:
    stub.script(completion(content))
    with pytest.raises(ModelReplyError, match=fragment):
        extract(client, EXAMPLES["en"].article)
    [receipt] = list_receipts(conn)
    assert receipt.outcome.startswith("error: the model's reply")
    assert (receipt.input_tokens, receipt.output_tokens) == (120, 40)


@pytest.mark.parametrize(
    "wrap",
    [
        lambda body: f"```json\n{body}\n```",
        lambda body: f"```\n{body}```\n",
        lambda body: f"<think>the user wants JSON {{}}</think>\n{body}",
        lambda body: f"  {body}\n",
    ],
)
def test_fenced_or_preceded_json_is_accepted(wrap: Any) -> None:
    body = json.dumps({"candidates": [EXAMPLES["zh"].new_method]}, ensure_ascii=False)
    [proposal] = parse_reply(wrap(body))
    assert proposal.quote == "复习时先自答再翻面"


def test_material_is_redacted_and_quotes_touching_a_credential_are_rejected(client: ChatClient, stub: ChatStub) -> None:
    key = "sk-proj-Q1w2E3r4T5y6U7i8O9p0AsDfGh"
    text = f"Deploy notes.\nUse the staging key {key} for smoke tests.\nAlways deploy from the release branch.\n"
    stub.script(
        candidates_reply(
            {"statement": "Staging uses a key.", "category": "entity", "quote": f"the staging key {key}"},
            {"statement": "Staging key known.", "category": "entity", "quote": "key [REDACTED:openai_key] for"},
            {"statement": "Deploy from the release branch.", "category": "method", "quote": "deploy from the release"},
        )
    )
    result = extract(client, text)
    assert key not in stub.sent_text()
    assert "[REDACTED:openai_key]" in stub.sent_text()
    assert [c.candidate.statement for c in result.candidates] == ["Deploy from the release branch."]
    assert [r.reason for r in result.rejected] == [
        "the quote overlaps a credential",
        "the quote contains a redacted credential",
    ]


def test_quote_differing_only_in_whitespace_maps_to_the_exact_source_span(client: ChatClient, stub: ChatStub) -> None:
    text = "Tips:\n  answer from memory\n  before flipping the card.\n复习时先自答 再翻面。"
    stub.script(
        candidates_reply(
            {"statement": "Recall first.", "category": "method", "quote": "answer from memory before flipping"},
            {"statement": "先自答。", "category": "method", "quote": "复习时先自答再翻面"},
        )
    )
    first, second = (found.candidate for found in extract(client, text).candidates)
    assert first.quote == "answer from memory\n  before flipping" == text[first.start : first.end]
    assert second.quote == "复习时先自答 再翻面" == text[second.start : second.end]


def test_bad_categories_hints_and_known_ids_are_handled_per_candidate(client: ChatClient, stub: ChatStub) -> None:
    example = EXAMPLES["en"]
    stub.script(
        candidates_reply(
            {**example.new_method, "category": "Method", "relation_hint": "novel", "known_id": 99},
            {**example.different, "category": "insight"},
            {**example.different, "statement": "  "},
            {**example.new_method, "quote": "the"},
        )
    )
    result = extract(client, example.article, [example.known])
    [kept] = result.candidates
    assert (kept.candidate.category, kept.relation_hint, kept.known_id) == ("method", None, None)
    assert [r.reason for r in result.rejected] == [
        "unknown category 'insight'",
        "the statement is empty",
        "the quote 'the' is too short to be evidence",
    ]


def test_long_material_goes_in_parts_with_offsets_into_the_whole(
    private_home: Path, conn: apsw.Connection, stub: ChatStub
) -> None:
    paragraphs = [f"Paragraph {n}: " + f"filler sentence number {n} about review schedules. " * 15 for n in range(3)]
    text = "\n\n".join(paragraphs)
    assert len(text) > 2_000
    stub.script(
        *[
            candidates_reply(
                {"statement": f"Point {n}.", "category": "method", "quote": f"Paragraph {n}: filler sentence"},
                {"statement": "Shared point.", "category": "method", "quote": "about review schedules"},
                prompt_tokens=100 + n,
                completion_tokens=10,
            )
            for n in range(3)
        ]
    )
    with make_client(private_home, conn, stub.url, max_input_chars=1_000) as client:
        result = extract(client, text)
    assert result.calls == len(stub.requests) == 3
    assert [found.candidate.statement for found in result.candidates] == [
        "Point 0.",
        "Shared point.",
        "Point 1.",
        "Point 2.",
    ]
    for found in result.candidates:
        assert text[found.candidate.start : found.candidate.end] == found.candidate.quote
    assert all(len(message) < 1_000 + 2_000 for message in stub.user_messages())
    assert "(part 2 of 3)" in stub.user_messages()[1]
    assert (result.input_tokens, result.output_tokens) == (303, 30)
    assert len(list_receipts(conn)) == 3


def test_failure_in_a_later_part_raises_after_receipting_every_call(
    private_home: Path, conn: apsw.Connection, stub: ChatStub
) -> None:
    text = "\n\n".join(f"Section {n}. " + "Words about intervals and recall. " * 40 for n in range(2))
    stub.script(candidates_reply(), Reply(502, b"bad gateway"), Reply(502, b"bad gateway"))
    with (
        make_client(private_home, conn, stub.url, max_input_chars=1_000) as client,
        pytest.raises(EndpointError, match="502"),
    ):
        extract(client, text)
    assert [r.outcome.split(":")[0] for r in reversed(list_receipts(conn))] == ["ok", "error"]


def test_private_project_never_reaches_a_remote_endpoint(
    private_home: Path, conn: apsw.Connection, stub: ChatStub
) -> None:
    stub.script(candidates_reply(EXAMPLES["en"].new_method))
    remote = make_client(
        private_home, conn, "https://models.example.com", private_projects=["study"], transport=RouteTo(stub)
    )
    with remote, pytest.raises(PrivateProjectError):
        extract(remote, EXAMPLES["en"].article)
    assert stub.requests == []
    assert list_receipts(conn) == []


def test_known_insights_of_a_private_project_are_not_shown_to_a_remote_endpoint(
    private_home: Path, conn: apsw.Connection, stub: ChatStub
) -> None:
    stub.script(candidates_reply())
    secret = Known(7, "diary", "preference", "I review cards at 5 a.m. before anyone wakes.", "")
    public = EXAMPLES["en"].known
    remote = make_client(
        private_home, conn, "https://models.example.com", private_projects=["diary"], transport=RouteTo(stub)
    )
    with remote:
        extract(remote, EXAMPLES["en"].article, [secret, public])
    assert public.statement in stub.sent_text()
    assert secret.statement not in stub.sent_text()


def test_spent_budget_makes_no_call(private_home: Path, conn: apsw.Connection, stub: ChatStub) -> None:
    record_receipt(conn, Receipt(NOON.isoformat(), "insights", "x", "stub-model", "study", "ok", input_tokens=9_000))
    stub.script(candidates_reply(EXAMPLES["zh"].new_method))
    with make_client(private_home, conn, stub.url, daily_token_budget=10_000) as client:
        assert not client.budget().exhausted
        with pytest.raises(BudgetExhausted) as caught:
            extract(client, EXAMPLES["zh"].article)
    assert caught.value.state.remaining == 1_000
    assert stub.requests == []
    assert len(list_receipts(conn)) == 1


def test_budget_must_cover_every_part_before_the_first_call(
    private_home: Path, conn: apsw.Connection, stub: ChatStub
) -> None:
    text = "\n\n".join(f"Section {n}. " + "Words about intervals and recall. " * 25 for n in range(3))
    parts = [p.text for p in split_passages(text, max_chars=1_000, overlap=0)]
    needs = [
        estimate_prompt_tokens(build_messages(part, [], part=n, parts=len(parts))) + 12 * 160
        for n, part in enumerate(parts, 1)
    ]
    assert len(needs) == 3
    stub.script(candidates_reply(), candidates_reply(), candidates_reply())
    with (
        make_client(private_home, conn, stub.url, max_input_chars=1_000, daily_token_budget=sum(needs) - 1) as client,
        pytest.raises(BudgetExhausted),
    ):
        extract(client, text)
    assert stub.requests == []
    with make_client(private_home, conn, stub.url, max_input_chars=1_000, daily_token_budget=sum(needs)) as client:
        assert extract(client, text).calls == 3


def test_empty_material_makes_no_call(client: ChatClient, stub: ChatStub) -> None:
    assert extract(client, " \n\t ") == ModelExtraction((), (), 0, 0, 0)
    assert stub.requests == []


@pytest.mark.parametrize(
    ("quote", "expected"),
    [
        ("先自答再翻面", (10, 16)),
        ("  先自答再翻面 ", (10, 16)),
        ("自答", "the quote '自答' is too short to be evidence"),
        ("先自答后翻面", "the quote is not found verbatim in the material"),
    ],
)
def test_locate_quote(quote: str, expected: tuple[int, int] | str) -> None:
    text = "间隔重复要点：复习时先自答再翻面。"
    assert locate_quote(text, quote) == expected


def test_a_reply_may_say_a_candidate_supersedes_and_holds_everywhere() -> None:
    body = (
        '{"candidates": [{"statement": "Answer in Chinese", "category": "preference", "quote": "以后都回复中文", '
        '"scope": "global", "relation_hint": "supersedes", "known_id": "ins-3"}, '
        '{"statement": "Port is 8443", "category": "decision", "quote": "port 8443", "scope": "everywhere?"}]}'
    )
    first, second = parse_reply(body)
    assert (first.scope, first.relation_hint, first.category) == ("global", "supersedes", "preference")
    assert second.scope == "project"  # anything but "global" keeps it to its project
    [kept], rejected = check_proposals([first], "以后都回复中文吧", known_ids={3})
    assert rejected == []
    assert (kept.candidate.scope, kept.relation_hint, kept.known_id) == ("global", "supersedes", 3)
