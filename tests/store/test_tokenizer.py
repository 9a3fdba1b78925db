from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from incremind_daemon.store.tokenizer import fold, fold_text, iter_tokens, query_words


def forms(text: str) -> set[str]:
    found: set[str] = set()
    for token in iter_tokens(text):
        found.add(token.text)
        found.update(token.colocated)
    return found


@pytest.mark.parametrize(
    ("document", "word"),
    [
        ("每天按计划复习单词", "复习"),
        ("复习题做完了", "复习"),
        ("服务的端口号是 8080", "端口"),
        ("服务的端口号是 8080", "8080"),
        ("Use snake_case names", "snake_case"),
        ("Use snake_case names", "snake"),
        ("class CamelCase:", "camel"),
        ("class CamelCase:", "camelcase"),
        ("upgrade to v1.2 today", "v1.2"),
        ("bind 127.0.0.1 only", "127.0.0.1"),
    ],
)
def test_document_tokens_include_searchable_word(document: str, word: str) -> None:
    assert word in forms(document)


def test_token_offsets_point_into_original_text() -> None:
    text = "Ｆｕｌｌ width 資料庫 and 端口号 v1.2"
    for token in iter_tokens(text):
        assert 0 <= token.start < token.end <= len(text)
        assert fold(text[token.start : token.end]) == token.text


def test_fold_maps_full_width_and_traditional_forms() -> None:
    assert fold("ＡＢＣ１２３") == "abc123"
    assert fold("復習資料") == "复习资料"


@given(st.text(max_size=200))
def test_fold_text_offsets_are_monotonic_and_complete(text: str) -> None:
    folded, offsets = fold_text(text)
    assert len(offsets) == len(folded) + 1
    assert offsets == sorted(offsets)
    assert offsets[-1] == len(text)


@given(st.text(max_size=200))
def test_iter_tokens_never_fails_and_stays_in_bounds(text: str) -> None:
    for token in iter_tokens(text):
        assert 0 <= token.start <= token.end <= len(text)
        assert token.text


def test_query_words_split_long_chinese_words_into_indexed_pieces() -> None:
    assert query_words("复习方法") == ["复习", "方法"]


def test_query_words_drop_stopwords_when_content_words_remain() -> None:
    assert query_words("how to configure the port") == ["configure", "port"]
    assert query_words("the") == ["the"]
