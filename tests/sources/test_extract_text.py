"""Dispatch, text decoding, Markdown titles and page lookup."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from incremind_daemon.errors import ExtractError
from incremind_daemon.sources.extract import SUPPORTED_SUFFIXES, extract_bytes, page_at

CHINESE = "第一章 向量检索\n记忆系统把笔记、文章和会话保存下来，以便以后查找。"


def test_supported_suffixes_are_the_documented_set() -> None:
    assert {
        ".txt",
        ".md",
        ".markdown",
        ".csv",
        ".json",
        ".jsonl",
        ".html",
        ".htm",
        ".pdf",
        ".docx",
    } == SUPPORTED_SUFFIXES


def test_unsupported_suffix_raises_naming_supported_types() -> None:
    with pytest.raises(ExtractError, match=r"report\.xlsx has an unsupported type.*\.docx.*\.txt"):
        extract_bytes(b"PK\x03\x04", "report.xlsx")


def test_suffix_dispatch_ignores_case() -> None:
    assert extract_bytes(b"# Notes\nbody", "NOTES.MD").media_type == "text/markdown"


@pytest.mark.parametrize(
    ("data", "suffix"),
    [
        (b"", ".txt"),
        (b"  \n\t\r\n", ".md"),
        ("\ufeff \n".encode(), ".txt"),
        (codecs.BOM_UTF16_LE + " \n".encode("utf-16-le"), ".txt"),
        (b"", ".pdf"),
        (b"", ".docx"),
        (b" ", ".csv"),
        (b"\n", ".json"),
    ],
)
def test_empty_file_raises_is_empty(data: bytes, suffix: str) -> None:
    with pytest.raises(ExtractError, match=rf"notes{suffix} is empty"):
        extract_bytes(data, f"notes{suffix}")


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(CHINESE.encode("utf-8"), id="utf-8"),
        pytest.param(codecs.BOM_UTF8 + CHINESE.encode("utf-8"), id="utf-8-bom"),
        pytest.param(CHINESE.encode("utf-16"), id="utf-16-native-bom"),
        pytest.param(codecs.BOM_UTF16_LE + CHINESE.encode("utf-16-le"), id="utf-16-le-bom"),
        pytest.param(codecs.BOM_UTF16_BE + CHINESE.encode("utf-16-be"), id="utf-16-be-bom"),
        pytest.param(CHINESE.encode("gb18030"), id="gb18030"),
        pytest.param(CHINESE.encode("gbk"), id="gbk"),
    ],
)
def test_text_file_decodes_without_mojibake(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(data)
    extracted = extract_bytes(path.read_bytes(), path.name)
    assert extracted.text == CHINESE
    assert (extracted.title, extracted.media_type) == ("notes", "text/plain")


@pytest.mark.parametrize("raw", [b"one\r\ntwo\rthree\n", b"one\ntwo\nthree\n"])
def test_text_newlines_are_normalised_to_lf(raw: bytes) -> None:
    assert extract_bytes(raw, "a.txt").text == "one\ntwo\nthree\n"


def test_text_content_is_kept_intact() -> None:
    raw = "  indented\ttab\n\n\nthree blank lines above  \n"
    assert extract_bytes(raw.encode(), "a.txt").text == raw


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00", id="nul-bytes"),
        pytest.param(bytes(range(1, 9)) * 20 + b"some text", id="control-chars"),
        pytest.param(b"caf\xe9 au lait \xff\xfe\xfd", id="undecodable"),
        pytest.param(b"\xff\xfe\x00\xd8", id="utf-16-bom-lone-surrogate"),
        pytest.param("\ue000\ue001\ue002\ue003".encode("gb18030"), id="gb18030-private-use"),
    ],
)
def test_binary_renamed_txt_raises_looks_like_binary(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "photo.txt"
    path.write_bytes(data)
    with pytest.raises(ExtractError, match=r"photo\.txt looks like a binary file, not text"):
        extract_bytes(path.read_bytes(), path.name)


@pytest.mark.parametrize(
    ("markdown", "title"),
    [
        ("intro\n# Real Title\n## Sub\n", "Real Title"),
        ("# Closed Title ##\n", "Closed Title"),
        ("```\n# not a heading\n```\n# After Fence\n", "After Fence"),
        ("## Only level two\ntext\n", "guide"),
        ("#NoSpace\ntext\n", "guide"),
    ],
)
def test_markdown_title_is_first_h1_heading(markdown: str, title: str) -> None:
    extracted = extract_bytes(markdown.encode(), "guide.md")
    assert (extracted.title, extracted.text) == (title, markdown)


@pytest.mark.parametrize(
    ("offset", "page"),
    [(-1, None), (0, 1), (9, 1), (10, 2), (24, 2), (25, 5), (10_000, 5)],
)
def test_page_at_returns_page_containing_offset(offset: int, page: int | None) -> None:
    assert page_at(((0, 1), (10, 2), (25, 5)), offset) == page


def test_page_at_returns_none_when_no_pages() -> None:
    assert page_at((), 0) is None


@pytest.mark.parametrize("name", ["a.txt", "a.md", "a.csv", "a.json", "a.jsonl", "a.html"])
def test_extract_bytes_is_deterministic_for_same_bytes(name: str) -> None:
    data = b'{"k": "v\\u4e2d", "n": [1, 2]}\r\n'
    assert extract_bytes(data, name) == extract_bytes(bytes(data), name)
