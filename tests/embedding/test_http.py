from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from incremind_daemon.embedding.http import HttpEmbedder, is_loopback, retry_after_seconds
from incremind_daemon.errors import ConfigError, IncremindError

DIMENSION = 6


def fake_vector(text: str) -> list[float]:
    """A deterministic, unnormalised vector for text."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [(byte - 127.5) / 16 for byte in digest[:DIMENSION]]


def unit(vector: list[float]) -> np.ndarray:
    array = np.array(vector, dtype=np.float32)
    return array / np.linalg.norm(array)


@dataclass
class Canned:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeEndpoint:
    """What the fake OpenAI server saw, and the answers to give before normal ones."""

    url: str
    inputs: list[list[str]] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)
    canned: list[Canned] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Server(ThreadingHTTPServer):
    endpoint: FakeEndpoint


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        endpoint = self.server.endpoint
        with endpoint.lock:
            endpoint.inputs.append(body["input"])
            endpoint.authorizations.append(self.headers.get("Authorization"))
            canned = endpoint.canned.pop(0) if endpoint.canned else None
        if self.path != "/v1/embeddings":
            canned = Canned(404, b'{"error": {"message": "no such route"}}')
        if canned is None:
            data = [
                {"object": "embedding", "index": i, "embedding": fake_vector(t)} for i, t in enumerate(body["input"])
            ]
            data.reverse()  # the protocol orders by "index", not by position
            canned = Canned(200, json.dumps({"object": "list", "data": data, "model": body["model"]}).encode())
        self.send_response(canned.status)
        for name, value in {"Content-Type": "application/json", **canned.headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(canned.body)))
        self.end_headers()
        self.wfile.write(canned.body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # keep the test output clean


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    server = _Server(("127.0.0.1", 0), _Handler)
    server.endpoint = FakeEndpoint(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-embeddings")
    thread.start()
    try:
        yield server.endpoint
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def embedder(endpoint: FakeEndpoint) -> Iterator[HttpEmbedder]:
    client = HttpEmbedder(endpoint.url, "fake-embed", api_key=None, batch_size=4, max_retries=2, retry_delay=0)
    yield client
    client.close()


TEXTS = [f"passage {i} 第{i}段" for i in range(10)]


def test_embeddings_come_back_in_input_order_normalised(embedder: HttpEmbedder) -> None:
    vectors = embedder.embed_passages(TEXTS)
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(TEXTS), DIMENSION)
    for text, vector in zip(TEXTS, vectors, strict=True):
        np.testing.assert_allclose(vector, unit(fake_vector(text)), rtol=1e-5)


def test_passages_are_sent_in_batches_of_batch_size(embedder: HttpEmbedder, endpoint: FakeEndpoint) -> None:
    embedder.embed_passages(TEXTS)
    assert endpoint.inputs == [TEXTS[0:4], TEXTS[4:8], TEXTS[8:10]]


def test_query_is_one_request(embedder: HttpEmbedder, endpoint: FakeEndpoint) -> None:
    np.testing.assert_allclose(embedder.embed_query("记得牢"), unit(fake_vector("记得牢")), rtol=1e-5)
    assert endpoint.inputs == [["记得牢"]]


def test_dimension_is_learnt_from_the_first_answer(embedder: HttpEmbedder, endpoint: FakeEndpoint) -> None:
    identity = embedder.identity
    assert (identity.name, identity.dimension) == ("fake-embed", DIMENSION)
    assert identity.key.startswith(f"fake_embed_{DIMENSION}_")
    assert len(endpoint.inputs) == 1
    assert embedder.identity == identity
    assert len(endpoint.inputs) == 1


def test_given_dimension_needs_no_request_and_a_wrong_one_raises(endpoint: FakeEndpoint) -> None:
    client = HttpEmbedder(endpoint.url, "fake-embed", api_key=None, dimension=DIMENSION + 1, retry_delay=0)
    try:
        assert client.identity.dimension == DIMENSION + 1
        assert endpoint.inputs == []
        with pytest.raises(IncremindError, match="set the dimension"):
            client.embed_query("x")
    finally:
        client.close()


def test_identity_digest_depends_on_model(endpoint: FakeEndpoint) -> None:
    one = HttpEmbedder(endpoint.url, "model-a", api_key=None, dimension=4)
    two = HttpEmbedder(endpoint.url, "model-b", api_key=None, dimension=4)
    assert one.identity.digest != two.identity.digest
    one.close()
    two.close()


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/"])
def test_base_url_with_or_without_v1_reaches_the_endpoint(endpoint: FakeEndpoint, suffix: str) -> None:
    client = HttpEmbedder(endpoint.url + suffix, "fake-embed", api_key=None, max_retries=0)
    try:
        assert client.url == endpoint.url + "/v1/embeddings"
        assert client.embed_query("x").shape == (DIMENSION,)
    finally:
        client.close()


def test_api_key_is_sent_as_bearer_token(endpoint: FakeEndpoint) -> None:
    client = HttpEmbedder(endpoint.url, "fake-embed", api_key="sk-test")
    try:
        client.embed_query("x")
    finally:
        client.close()
    assert endpoint.authorizations == ["Bearer sk-test"]


@pytest.mark.parametrize(
    "failure",
    [
        Canned(429, b'{"error": {"message": "slow down"}}', {"Retry-After": "0"}),
        Canned(500, b"internal error"),
        Canned(503, b"", {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}),  # a date in the past: no wait
    ],
)
def test_rate_limit_and_server_errors_are_retried(
    embedder: HttpEmbedder, endpoint: FakeEndpoint, failure: Canned
) -> None:
    endpoint.canned.append(failure)
    vector = embedder.embed_query("retry me")
    np.testing.assert_allclose(vector, unit(fake_vector("retry me")), rtol=1e-5)
    assert endpoint.inputs == [["retry me"], ["retry me"]]


def test_retry_after_is_capped_at_max_retry_delay(endpoint: FakeEndpoint) -> None:
    endpoint.canned.append(Canned(429, b"{}", {"Retry-After": "3600"}))
    client = HttpEmbedder(endpoint.url, "fake-embed", api_key=None, max_retry_delay=0.01)
    started = time.monotonic()
    try:
        client.embed_query("x")
    finally:
        client.close()
    assert time.monotonic() - started < 2


def test_persistent_server_errors_raise_after_max_retries(embedder: HttpEmbedder, endpoint: FakeEndpoint) -> None:
    endpoint.canned.extend(Canned(502, b"bad gateway") for _ in range(3))
    with pytest.raises(IncremindError, match="answered 502 Bad Gateway 3 times"):
        embedder.embed_query("x")
    assert len(endpoint.inputs) == 3


def test_bad_request_raises_at_once_with_the_server_message(embedder: HttpEmbedder, endpoint: FakeEndpoint) -> None:
    endpoint.canned.append(Canned(400, b'{"error": {"message": "model fake-embed is not an embedding model"}}'))
    with pytest.raises(IncremindError, match="400 Bad Request: model fake-embed is not an embedding model"):
        embedder.embed_query("x")
    assert len(endpoint.inputs) == 1


def test_unauthorised_request_advises_checking_the_key(embedder: HttpEmbedder, endpoint: FakeEndpoint) -> None:
    endpoint.canned.append(Canned(401, b"nope"))
    with pytest.raises(IncremindError, match="check the API key"):
        embedder.embed_query("x")


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b'{"data": [', "malformed JSON"),
        (b'{"result": []}', "without a 'data' list"),
        (b'{"data": [{"index": 0, "embedding": [1, 0]}]}', "returned 1 embeddings for 2 texts"),
        (b'{"data": [{"index": 0, "embedding": [1, 0]}, {"index": 0, "embedding": [0, 1]}]}', "repeated index"),
        (b'{"data": [{"index": 0, "embedding": [1, 0]}, {"index": 1, "embedding": [0]}]}', "equal-length"),
        (b'{"data": [{"index": 0, "embedding": "AAA="}, {"index": 1, "embedding": "AAA="}]}', "lists of"),
    ],
)
def test_malformed_answer_raises(embedder: HttpEmbedder, endpoint: FakeEndpoint, body: bytes, fragment: str) -> None:
    endpoint.canned.append(Canned(200, body))
    with pytest.raises(IncremindError, match=fragment):
        embedder.embed_passages(["a", "b"])


def test_unreachable_endpoint_raises_after_retries() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = HttpEmbedder(f"http://127.0.0.1:{port}", "m", api_key=None, max_retries=1, retry_delay=0)
    try:
        with pytest.raises(IncremindError, match=r"could not reach the embedding endpoint .* in 2 attempts"):
            client.embed_query("x")
    finally:
        client.close()


@pytest.mark.parametrize("base_url", ["ftp://127.0.0.1/", "127.0.0.1:8080"])
def test_base_url_without_http_scheme_raises_config_error(base_url: str) -> None:
    with pytest.raises(ConfigError, match="http:// or https://"):
        HttpEmbedder(base_url, "m", api_key=None)


@pytest.mark.parametrize(
    ("base_url", "expected"),
    [
        ("http://127.0.0.1:8080", True),
        ("http://127.9.8.7/v1", True),
        ("https://localhost:11434/v1", True),
        ("http://LOCALHOST.", True),
        ("http://[::1]:8000", True),
        ("http://[::ffff:127.0.0.1]:8000", True),
        ("localhost:8080", True),
        ("http://user:pw@127.0.0.1:1", True),
        ("http://127.0.0.1@api.openai.com/v1", False),
        ("https://api.openai.com/v1", False),
        ("http://localhost.example.com", False),
        ("http://0.0.0.0:8080", False),
        ("http://10.0.0.5:8080", False),
        ("http://[::2]:80", False),
        ("http://127.0.0.1.nip.io", False),
        ("", False),
        ("http://[::1", False),
    ],
)
def test_is_loopback(base_url: str, expected: bool) -> None:
    assert is_loopback(base_url) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), ("0", 0.0), ("2.5", 2.5), ("-3", 0.0), ("soon", None), ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0)],
)
def test_retry_after_seconds(value: str | None, expected: float | None) -> None:
    assert retry_after_seconds(value) == expected
