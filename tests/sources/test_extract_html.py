"""HTML extraction: boilerplate removed, blocks on their own lines."""

from __future__ import annotations

import pytest

from incremind_daemon.errors import ExtractError
from incremind_daemon.sources.extract import extract_bytes

PAGE = b"""<!DOCTYPE html><html><head><meta charset="utf-8"><title> The  Page </title>
<style>body { color: red }</style><script>var secret = "script text";</script></head>
<body><nav><a href="/">Home</a> menu</nav><header>Site banner</header>
<article><h1>Main heading</h1><p>First &amp; <b>bold</b>
   paragraph&nbsp;here.</p><ul><li>one</li><li>two</li></ul>
<div>line<br>break</div><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
<noscript>enable js</noscript><template><p>hidden</p></template><svg><title>icon</title></svg>
<form><label>Search</label></form><aside>related links</aside></article>
<footer>copyright</footer></body></html>"""


def test_html_keeps_readable_text_in_block_lines() -> None:
    assert extract_bytes(PAGE, "page.html").text == (
        "Main heading\n\nFirst & bold paragraph here.\n\none\ntwo\n\nline\nbreak\n\nk | v\na | 1"
    )


@pytest.mark.parametrize(
    "dropped",
    [
        "script text",
        "color",
        "menu",
        "Site banner",
        "enable js",
        "hidden",
        "icon",
        "Search",
        "related",
        "copyright",
    ],
)
def test_html_drops_boilerplate(dropped: str) -> None:
    assert dropped not in extract_bytes(PAGE, "page.html").text


@pytest.mark.parametrize(
    ("markup", "title"),
    [
        (PAGE, "The Page"),
        (b"<h2>Second</h2><h1>First</h1><p>x</p>", "First"),
        (b"<h3>Only h3</h3><p>x</p>", "Only h3"),
        (b"<p>no heading</p>", "page"),
    ],
)
def test_html_title_is_title_tag_then_first_heading(markup: bytes, title: str) -> None:
    extracted = extract_bytes(markup, "page.htm")
    assert (extracted.title, extracted.media_type) == (title, "text/html")


def test_html_keeps_pre_whitespace() -> None:
    markup = b"<p>code:</p><pre>def f():\n    return 1\n</pre>"
    assert extract_bytes(markup, "c.html").text == "code:\n\ndef f():\n    return 1"


@pytest.mark.parametrize(
    "meta",
    [
        b'<meta charset="gbk">',
        b"<meta charset=GB2312>",
        b'<meta http-equiv="Content-Type" content="text/html; charset=gb2312">',
    ],
)
def test_html_honours_meta_charset(meta: bytes) -> None:
    body = "<title>中文标题</title></head><body><p>你好</p>".encode("gbk")
    markup = b"<html><head>" + meta + body
    extracted = extract_bytes(markup, "cn.html")
    assert (extracted.title, extracted.text) == ("中文标题", "你好")


def test_html_uses_windows_1252_for_latin1_meta() -> None:
    markup = b'<meta charset="iso-8859-1"><p>caf\xe9 \x93quoted\x94</p>'
    assert extract_bytes(markup, "fr.html").text == "caf\u00e9 \u201cquoted\u201d"


def test_html_detects_encoding_when_meta_charset_is_wrong() -> None:
    markup = b'<meta charset="utf-8"><p>' + "简体中文内容".encode("gb18030") + b"</p>"
    assert extract_bytes(markup, "cn.html").text == "简体中文内容"


def test_html_bom_wins_over_meta_charset() -> None:
    markup = '<meta charset="gbk"><p>ünïcode</p>'.encode("utf-16")
    assert extract_bytes(markup, "u.html").text == "ünïcode"


def test_html_raises_is_empty_when_only_scripts_and_styles() -> None:
    with pytest.raises(ExtractError, match=r"app\.html is empty"):
        extract_bytes(b"<script>x()</script><style>p {}</style><template>t</template>", "app.html")


def test_html_raises_cannot_parse_on_bad_marked_section() -> None:
    with pytest.raises(ExtractError, match=r"odd\.html could not be parsed as HTML"):
        extract_bytes(b"<p>text</p><![foo bar", "odd.html")


def test_html_keeps_boilerplate_tags_when_they_wrap_the_whole_page() -> None:
    markup = b"<body><form id='aspnet'><h1>Heading</h1><p>Content in a form.</p></form></body>"
    assert extract_bytes(markup, "web.html").text == "Heading\n\nContent in a form."


@pytest.mark.parametrize(
    ("markup", "title"),
    [(b"<title>Unclosed<p>Body text</p>", "Unclosed"), (b"<h1>Open heading<p>Body text</p>", "Open heading")],
)
def test_html_unclosed_title_or_heading_keeps_body(markup: bytes, title: str) -> None:
    extracted = extract_bytes(markup, "u.html")
    assert (extracted.title, extracted.text.splitlines()[-1]) == (title, "Body text")
