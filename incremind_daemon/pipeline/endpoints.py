"""Reaching OpenAI-compatible HTTP endpoints: where they are, and posting with retries.

Shared by the embeddings and chat clients, so both treat loopback, Retry-After
and backoff alike.
"""

from __future__ import annotations

import email.utils
import ipaddress
import logging
import time
from dataclasses import dataclass
from datetime import UTC
from urllib.parse import urlsplit, urlunsplit

import httpx

from incremind_daemon.store import clock

log = logging.getLogger(__name__)


def is_loopback(base_url: str) -> bool:
    """Tell whether base_url names this machine: 127.0.0.0/8, ::1 or localhost.

    Anything else, a name that merely resolves to 127.0.0.1 included, is not.
    """
    url = base_url.strip()
    try:
        host = urlsplit(url if "://" in url else f"http://{url}").hostname
    except ValueError:
        return False
    if not host:
        return False
    host = host.rstrip(".")
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])  # drop an IPv6 zone such as %eth0
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def public_url(url: str) -> str:
    """The URL without any ``user:password@`` part, fit for logs and receipts."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        port = parts.port
    except ValueError:
        return "<unparseable URL>"
    if "@" not in parts.netloc or host is None:
        return url
    shown = f"[{host}]" if ":" in host else host
    netloc = f"{shown}:{port}" if port is not None else shown
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def is_retryable(status: int) -> bool:
    """Tell whether an HTTP status is worth asking again: rate limits and server errors."""
    return status == 429 or status >= 500


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently a failed request is repeated.

    The n-th retry waits ``delay * 2**n`` seconds, or what the server's
    Retry-After asks for, and never more than ``max_delay``.
    """

    max_retries: int = 3
    delay: float = 0.5
    max_delay: float = 20.0


@dataclass(frozen=True, slots=True)
class Exchange:
    """The last answer to a request repeated under a RetryPolicy, and what every attempt met."""

    response: httpx.Response | None  # None when the last attempt failed on the network
    error: httpx.TransportError | None
    attempts: tuple[str, ...]  # per attempt: the HTTP status, or the network error's name


def post_json(client: httpx.Client, url: str, payload: object, policy: RetryPolicy, *, label: str) -> Exchange:
    """POST payload as JSON, retrying network failures, 429 and 5xx answers.

    Returns the first answer that is not worth retrying, or the last failure
    once the retries are spent; the caller decides what a failure means.
    """
    attempts: list[str] = []
    while True:
        retry_after: str | None = None
        try:
            response = client.post(url, json=payload)
        except httpx.TransportError as exc:
            attempts.append(type(exc).__name__)
            if len(attempts) > policy.max_retries:
                return Exchange(None, exc, tuple(attempts))
            reason = repr(exc)
        else:
            attempts.append(str(response.status_code))
            if not is_retryable(response.status_code) or len(attempts) > policy.max_retries:
                return Exchange(response, None, tuple(attempts))
            retry_after = response.headers.get("Retry-After")
            reason = f"{response.status_code} {response.reason_phrase}"
        delay = backoff_seconds(policy, len(attempts) - 1, retry_after)
        log.warning("%s request to %s failed (%s); retrying in %.2f s", label, public_url(url), reason, delay)
        time.sleep(delay)


def backoff_seconds(policy: RetryPolicy, retry: int, retry_after: str | None) -> float:
    """Seconds to wait before retry number ``retry`` (from 0)."""
    delay = retry_after_seconds(retry_after)
    if delay is None:
        delay = policy.delay * 2**retry
    return min(delay, policy.max_delay)


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds a Retry-After header asks for (a number or an HTTP date); None if absent or unreadable."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - clock.now()).total_seconds())


def error_message(response: httpx.Response) -> str:
    """The server's own words for a failed request: ``error.message`` when it gives one."""
    detail = response.text[:300].strip()
    try:
        error = response.json().get("error")
        detail = str(error.get("message", error) if isinstance(error, dict) else error or detail)
    except (ValueError, AttributeError):
        pass
    return detail


def describe_refusal(response: httpx.Response, url: str, model: str, *, section: str, kind: str) -> str:
    """Say that an endpoint refused a request (a 4xx other than 429) and what to check.

    section is the settings group that names the endpoint ("model",
    "embedding"); kind says what model it should serve ("a chat model").
    """
    status = response.status_code
    if status in (401, 403):
        advice = f"check the API key named by {section}.api_key_env"
    elif status == 404:
        advice = f"check {section}.base_url and that the endpoint serves the model {model}"
    else:
        advice = f"check that {model} is {kind} this endpoint accepts"
    return (
        f"the {section} endpoint {url} refused the request ({status} {response.reason_phrase}: "
        f"{error_message(response)}); {advice}"
    )
