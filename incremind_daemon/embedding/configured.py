"""Build the embedder the settings ask for (in-process, installed ONNX model, or HTTP)."""

from __future__ import annotations

import logging

from incremind_daemon.config import Settings, is_private, secret_from_env
from incremind_daemon.embedding.cache import query_cache
from incremind_daemon.embedding.e5_small import E5SmallEmbedder
from incremind_daemon.embedding.http import HttpEmbedder, is_loopback
from incremind_daemon.embedding.onnx import OnnxEmbedder
from incremind_daemon.embedding.use_m3 import UseM3Embedder
from incremind_daemon.errors import ConfigError
from incremind_daemon.locate import cache_dir
from incremind_daemon.store.embedder import Embedder

log = logging.getLogger(__name__)


def make_embedder(settings: Settings) -> Embedder | None:
    """Return the configured embedder, or None for keyword-only search."""
    conf = settings.embedding
    if conf.backend == "none":
        return None
    if conf.backend == "use-m3":
        return query_cache(UseM3Embedder(threads=conf.threads, cache=cache_dir()))
    if conf.backend == "e5-small":
        return query_cache(E5SmallEmbedder(threads=conf.threads))
    if conf.backend == "onnx":
        if not conf.model:
            raise ConfigError("embedding.backend is onnx but embedding.model names no model; see incremind model list")
        folder = settings.models_dir / conf.model
        return query_cache(OnnxEmbedder(folder, threads=conf.threads, batch_size=conf.batch_size))
    if not conf.base_url or not conf.model:
        raise ConfigError("embedding.backend is http: set embedding.base_url and embedding.model")
    return query_cache(
        HttpEmbedder(conf.base_url, conf.model, api_key=secret_from_env(conf.api_key_env), batch_size=conf.batch_size)
    )


def may_embed_project(settings: Settings, project: str) -> bool:
    """Tell whether a project's text may go to the configured embedder (private ones stay on this machine)."""
    conf = settings.embedding
    if conf.backend != "http" or not is_private(settings, project):
        return True
    return bool(conf.base_url) and is_loopback(conf.base_url or "")
