"""Chat completions from an OpenAI-compatible endpoint (``POST /v1/chat/completions``) over httpx.

Three promises hold for every call, so no caller can forget them:
- a project that is private never reaches an endpoint off this machine;
- a call that would overspend today's token budget is not made;
- a call that is made leaves a Receipt, whatever came of it (through the
  ``record`` callback, before ``complete`` returns or raises).
Redacting what is sent is the caller's job (see ``pipeline.redact``).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from types import TracebackType
from typing import Generic, Literal, Protocol, TypeVar
from urllib.parse import urlsplit

import httpx

from incremind_daemon.config import Settings, private_projects, secret_from_env
from incremind_daemon.errors import ConfigError, IncremindError
from incremind_daemon.pipeline.endpoints import (
    Exchange,
    RetryPolicy,
    describe_refusal,
    is_loopback,
    is_retryable,
    post_json,
    public_url,
)
from incremind_daemon.store import clock as wall_clock
from incremind_daemon.store.charsets import CJK_CHAR
from incremind_daemon.store.receipts import BudgetState, Receipt

log = logging.getLogger(__name__)

T = TypeVar("T")

_MESSAGE_OVERHEAD = 4  # tokens a chat message costs beyond its text, as OpenAI counts them
_REPLY_PRIMING = 3
_MAX_OUTCOME_CHARS = 500


class ModelError(IncremindError):
    """A model call failed; nothing came of it, so keep the material and try again later."""


class EndpointError(ModelError):
    """The endpoint could not be reached, or kept failing after the retries."""


class EndpointRefused(EndpointError):
    """The endpoint refused the request (a 4xx other than 429); retrying alone will not help."""


class ModelReplyError(ModelError):
    """The model answered, but not with what was asked for (not JSON, wrong shape, cut off)."""


class ModelWithheld(IncremindError):
    """The call was not made and nothing was sent; use the local path instead."""


class PrivateProjectError(ModelWithheld):
    """The project is private and the endpoint is not on this machine."""


class BudgetExhausted(ModelWithheld):
    """Today's token budget cannot pay for the call."""

    def __init__(self, message: str, state: BudgetState) -> None:
        super().__init__(message)
        self.state = state


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True, slots=True)
class TokenUsage:
    input_tokens: int
    output_tokens: int
    estimated: bool  # the server reported no usage, so the text was counted instead


@dataclass(frozen=True, slots=True)
class ChatReply(Generic[T]):
    """What one call brought back: the parsed value, the raw text, and its cost."""

    value: T
    content: str
    usage: TokenUsage
    duration_ms: int
    attempts: int


class ChatModel(Protocol):
    """What the insight step asks of a model: this module's ChatClient, or a headless agent (``agent_cli``).

    Both keep the promises in this module's docstring.
    """

    @property
    def max_input_chars(self) -> int: ...

    def may_send(self, project: str, *, private: bool = False) -> bool: ...

    def check_private(self, project: str, *, private: bool = False) -> None: ...

    def check_budget(self, tokens: int) -> BudgetState: ...

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
    ) -> ChatReply[T]: ...

    def close(self) -> None: ...


def require_budget(state: BudgetState, tokens: int) -> BudgetState:
    """Return state, or raise BudgetExhausted unless ``tokens`` more fit in it."""
    if not state.allows(tokens):
        raise BudgetExhausted(
            f"the daily model budget is spent ({state.spent:,} of {state.limit:,} tokens used on {state.day}, "
            f"about {tokens:,} more needed); local rules take over until midnight UTC, "
            "or raise model.daily_token_budget",
            state,
        )
    return state


@dataclass(frozen=True, slots=True)
class DailyBudget:
    """Today's (UTC) token spending, as the receipts tell it, against a daily limit."""

    limit: int
    spent: Callable[[date], int]  # tokens receipted on a UTC day
    clock: Callable[[], datetime]

    def state(self) -> BudgetState:
        today = self.clock().astimezone(UTC).date()
        return BudgetState(today, self.spent(today), self.limit)

    def require(self, tokens: int) -> BudgetState:
        """Return today's state, or raise BudgetExhausted unless ``tokens`` more fit in it."""
        return require_budget(self.state(), tokens)


def record_call(record: Callable[[Receipt], object], receipt: Receipt) -> None:
    """Store one model call's receipt (its outcome cut to a readable length) and log it in one line."""
    record(dataclasses.replace(receipt, outcome=receipt.outcome[:_MAX_OUTCOME_CHARS]))
    log.info(
        "%s call to %s for %s: %s in %d ms, %d+%d tokens",
        receipt.purpose,
        receipt.endpoint,
        receipt.project,
        receipt.outcome.split(":", 1)[0],
        receipt.duration_ms,
        receipt.input_tokens,
        receipt.output_tokens,
    )


def chat_url(base_url: str) -> str:
    """The chat completions endpoint under base_url, with or without its ``/v1``."""
    url = base_url.strip().rstrip("/")
    if urlsplit(url).scheme not in ("http", "https"):
        raise ConfigError(f"the model base URL {base_url!r} must start with http:// or https://; fix model.base_url")
    return f"{url}/chat/completions" if url.endswith("/v1") else f"{url}/v1/chat/completions"


def estimate_tokens(text: str) -> int:
    """A rough, deliberately generous token count: one per CJK character, one per four others."""
    cjk = len(CJK_CHAR.findall(text))
    return math.ceil(cjk + (len(text) - cjk) / 4)


def estimate_prompt_tokens(messages: Sequence[ChatMessage]) -> int:
    """A rough token count of a request's messages, framing included."""
    return sum(estimate_tokens(m.content) + _MESSAGE_OVERHEAD for m in messages) + _REPLY_PRIMING


class ChatClient:
    """Ask an OpenAI-compatible chat model, with the guards described in this module.

    ``record`` stores a Receipt (``functools.partial(record_receipt, conn)``);
    ``spent`` returns the tokens receipted on a UTC day
    (``functools.partial(tokens_spent, conn)``). Network failures, 429 and 5xx
    are retried with exponential backoff from ``retry_delay`` seconds, or as
    the server's Retry-After asks, never waiting over ``max_retry_delay``.
    Not thread-safe: one client per thread, like the connection behind it.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        record: Callable[[Receipt], object],
        spent: Callable[[date], int],
        retry_delay: float = 0.5,
        max_retry_delay: float = 20.0,
        clock: Callable[[], datetime] = wall_clock.now,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        model = settings.model
        if not model.base_url or not model.name:
            raise ConfigError("a chat model needs both model.base_url and model.name; set them or leave both unset")
        self.url = chat_url(model.base_url)
        self.endpoint = public_url(self.url)  # what receipts and logs show: never credentials
        self.model = model.name
        self.is_loopback = is_loopback(model.base_url)
        self.max_input_chars = model.max_input_chars
        self._budget = DailyBudget(model.daily_token_budget, spent, clock)
        self._settings = settings
        self._policy = RetryPolicy(model.max_retries, retry_delay, max_retry_delay)
        self._record = record
        self._clock = clock
        api_key = secret_from_env(model.api_key_env)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        # a loopback endpoint is reached directly, never through a proxy named in the environment
        self._client = httpx.Client(
            timeout=model.timeout_seconds, headers=headers, transport=transport, trust_env=not self.is_loopback
        )

    def may_send(self, project: str, *, private: bool = False) -> bool:
        """Tell whether text of this project may go to this endpoint.

        Private are the projects the caller flags, those in settings, and
        those whose inbox folder holds a ``.private`` marker (looked up now).
        """
        return self.is_loopback or not (private or project in private_projects(self._settings))

    def check_private(self, project: str, *, private: bool = False) -> None:
        """Raise PrivateProjectError unless text of this project may go to this endpoint."""
        if not self.may_send(project, private=private):
            raise PrivateProjectError(
                f"project {project!r} is private, so its text is not sent to {self.endpoint}, which is not on this "
                "machine; use a loopback model endpoint or take the project off private_projects"
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
        """Send messages, then turn the reply's text into a value with ``parse``.

        The call is receipted as ``ok`` only if ``parse`` accepts the reply;
        whatever ``parse`` raises is receipted as an error and raised on.
        Raises PrivateProjectError or BudgetExhausted (nothing sent, no
        receipt), EndpointError, or ModelReplyError.
        """
        self.check_private(project, private=private)
        self.check_budget(estimate_prompt_tokens(messages) + reserve_output_tokens)
        payload = {"model": self.model, "messages": [{"role": m.role, "content": m.content} for m in messages]}
        at = self._clock().astimezone(UTC).isoformat(timespec="milliseconds")
        started = time.monotonic()
        outcome = "error: interrupted"
        usage = TokenUsage(0, 0, estimated=False)
        attempts: tuple[str, ...] = ()
        try:
            exchange = post_json(self._client, self.url, payload, self._policy, label="chat")
            attempts = exchange.attempts
            response = self._successful_response(exchange)
            # a 200 is billed even when its body is of no use, so its tokens are counted from here on
            usage = TokenUsage(estimate_prompt_tokens(messages), estimate_tokens(response.text), estimated=True)
            body = _json_body(response, self.endpoint)
            content, finish = completion_text(body)
            usage = reported_usage(body) or TokenUsage(usage.input_tokens, estimate_tokens(content or ""), True)
            if content is None:
                raise ModelReplyError(
                    f"{self.endpoint} answered without a message text in choices[0]; "
                    "is it an OpenAI-compatible chat endpoint?"
                )
            value = _parse_reply(parse, content, finish)
            outcome = "ok"
        except EndpointRefused as exc:
            outcome = f"rejected: {exc}"
            raise
        except Exception as exc:
            outcome = f"error: {exc}" if isinstance(exc, IncremindError) else f"error: {type(exc).__name__}: {exc}"
            raise
        finally:
            duration_ms = round((time.monotonic() - started) * 1000)
            receipt = Receipt(
                at=at,
                purpose=purpose,
                endpoint=self.endpoint,
                model=self.model,
                project=project,
                outcome=outcome,
                source_id=source_id,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                duration_ms=duration_ms,
                detail=_receipt_detail(attempts, usage),
            )
            record_call(self._record, receipt)
        return ChatReply(value, content, usage, duration_ms, len(attempts))

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def _successful_response(self, exchange: Exchange) -> httpx.Response:
        response = exchange.response
        tries = len(exchange.attempts)
        if response is None:
            raise EndpointError(
                f"could not reach the model endpoint {self.endpoint} in {tries} attempts ({exchange.error!r}); "
                "check that it is running and model.base_url is right"
            ) from exchange.error
        if not response.is_success and not is_retryable(response.status_code):
            refusal = describe_refusal(response, self.endpoint, self.model, section="model", kind="a chat model")
            raise EndpointRefused(refusal)
        if not response.is_success:
            raise EndpointError(
                f"the model endpoint {self.endpoint} answered {response.status_code} {response.reason_phrase} "
                f"{tries} times; try again later"
            )
        return response


def completion_text(body: object) -> tuple[str | None, str | None]:
    """Read the first choice's message text and finish reason from a chat completion."""
    choices = body.get("choices") if isinstance(body, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    content = _message_text(message.get("content") if isinstance(message, dict) else None)
    finish = first.get("finish_reason") if isinstance(first, dict) else None
    return content, finish if isinstance(finish, str) else None


def reported_usage(body: object) -> TokenUsage | None:
    """The ``usage`` a chat completion reports, or None when it reports none that makes sense."""
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return None
    prompt, completion = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
    if prompt is None or completion is None:
        return None
    return TokenUsage(prompt, completion, estimated=False)


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _json_body(response: httpx.Response, endpoint: str) -> object:
    try:
        body: object = response.json()
    except ValueError as exc:
        raise ModelReplyError(
            f"{endpoint} answered with malformed JSON ({exc}); is it an OpenAI-compatible chat endpoint?"
        ) from exc
    return body


def _message_text(content: object) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts, as some servers send them
        texts = [part.get("text") for part in content if isinstance(part, dict)]
        joined = "".join(text for text in texts if isinstance(text, str))
        return joined if texts else None
    return None


def _parse_reply(parse: Callable[[str], T], content: str, finish: str | None) -> T:
    try:
        return parse(content)
    except ModelReplyError as exc:
        if finish == "length":
            raise ModelReplyError(f"{exc}; the reply was cut off at the model's length limit") from exc
        raise


def _receipt_detail(attempts: tuple[str, ...], usage: TokenUsage) -> str:
    parts = [f"attempts: {', '.join(attempts)}"] if attempts else []
    if usage.estimated:
        parts.append("tokens estimated (the endpoint reported no usage)")
    return "; ".join(parts)
