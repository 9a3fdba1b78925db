"""Extract the readable text of an HTML page with the stdlib parser."""

from __future__ import annotations

import codecs
import logging
import re
from html.parser import HTMLParser

from incremind_daemon.errors import ExtractError

from .extracted import Extracted, display_name, finish
from .text import check_is_text, decode_text, normalise_newlines

log = logging.getLogger(__name__)

_NEVER_TEXT = frozenset({"script", "style", "noscript", "template", "svg", "math", "iframe", "object"})
# Some sites wrap the whole page in one of these (ASP.NET in a <form>), so when
# dropping them leaves nothing, extraction runs again keeping them.
_BOILERPLATE = frozenset({"nav", "header", "footer", "aside", "form"})
_PARAGRAPH_BLOCKS = frozenset(
    {
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "blockquote",
        "table",
        "ul",
        "ol",
        "dl",
        "section",
        "article",
        "main",
        "figure",
        "hr",
        "address",
        "details",
        "fieldset",
    }
)
_LINE_BLOCKS = frozenset(
    {
        "br",
        "div",
        "li",
        "tr",
        "dt",
        "dd",
        "caption",
        "figcaption",
        "summary",
        "legend",
        "option",
        "thead",
        "tbody",
        "tfoot",
    }
)
_CELLS = frozenset({"td", "th"})
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_SPACES = re.compile(r"\s+")
_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]{1,40})""", re.IGNORECASE)
# WHATWG decodes these as their supersets, and a UTF-16/32 label in a <meta> as UTF-8.
_CHARSET_ALIASES = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "iso8859-1": "cp1252",
    "ascii": "cp1252",
    "utf-16": "utf-8",
    "utf-16-le": "utf-8",
    "utf-16-be": "utf-8",
    "utf-32": "utf-8",
    "utf-32-le": "utf-8",
    "utf-32-be": "utf-8",
}
# Text codecs that are not character sets a page could be written in.
_NOT_CHARSETS = frozenset({"idna", "punycode", "unicode-escape", "raw-unicode-escape", "undefined", "utf-7"})
_PRESCAN_BYTES = 1024


class _TextCollector(HTMLParser):
    """Collect visible text as lines, with paragraph gaps between blocks."""

    def __init__(self, skipped: frozenset[str]) -> None:
        super().__init__(convert_charrefs=True)
        self._skipped = skipped
        self.lines: list[str] = []
        self.title = ""
        self.headings: dict[str, str] = {}
        self._skipping: list[str] = []
        self._line: list[str] = []
        self._line_is_pre = False
        self._gap_pending = False
        self._pre_depth = 0
        self._cells_in_row = 0
        self._capture: str | None = None
        self._captured: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._capture == "title" or (self._capture and tag in _PARAGRAPH_BLOCKS | _LINE_BLOCKS):
            self._finish_capture()  # an unclosed <title> or heading must not swallow the page
        if tag == "title" and not self._skipping and not self.title:
            self._capture, self._captured = "title", []
            return
        if tag in self._skipped:
            self._skipping.append(tag)
            return
        if self._skipping:
            return
        self._break_for(tag)
        if tag == "pre":
            self._pre_depth += 1
        elif tag == "tr":
            self._cells_in_row = 0
        elif tag in _CELLS:
            if self._cells_in_row:
                self._line.append(" | ")
            self._cells_in_row += 1
        elif tag in _HEADINGS and tag not in self.headings and self._capture is None:
            self._capture, self._captured = tag, []

    def handle_endtag(self, tag: str) -> None:
        if tag == self._capture:
            self._finish_capture()
        if tag in self._skipping:
            while self._skipping.pop() != tag:
                pass
            return
        if self._skipping:
            return
        if tag == "pre" and self._pre_depth:
            self._pre_depth -= 1
        self._break_for(tag)

    def handle_data(self, data: str) -> None:
        if self._skipping:
            return
        if self._capture is not None:
            self._captured.append(data)
            if self._capture == "title":
                return
        if not self._pre_depth:
            self._line.append(_SPACES.sub(" ", data))
            return
        first, *rest = normalise_newlines(data).split("\n")
        self._line.append(first)
        self._line_is_pre = True
        for part in rest:
            self._end_line()
            self._line.append(part)
            self._line_is_pre = True

    def close(self) -> None:
        super().close()
        self._end_line()

    def _finish_capture(self) -> None:
        text = " ".join("".join(self._captured).split())
        if self._capture == "title":
            self.title = text
        elif self._capture and text:
            self.headings[self._capture] = text
        self._capture, self._captured = None, []

    def _break_for(self, tag: str) -> None:
        if tag in _PARAGRAPH_BLOCKS:
            self._end_line()
            self._gap_pending = True
        elif tag in _LINE_BLOCKS:
            self._end_line()

    def _end_line(self) -> None:
        raw = "".join(self._line)
        line = raw.rstrip() if self._line_is_pre else _SPACES.sub(" ", raw).strip()
        self._line, self._line_is_pre = [], False
        if not line.strip():
            return
        if self._gap_pending and self.lines:
            self.lines.append("")
        self._gap_pending = False
        self.lines.append(line)


def extract_html(data: bytes, name: str) -> Extracted:
    """Extract visible text and the title of an HTML page, boilerplate removed."""
    markup = _decode_html(data, name)
    collector = _collect(markup, _NEVER_TEXT | _BOILERPLATE, name)
    if not collector.lines:
        collector = _collect(markup, _NEVER_TEXT, name)
    title = collector.title or collector.headings.get("h1", "")
    if not title:
        title = next((collector.headings[h] for h in _HEADINGS if h in collector.headings), "")
    return finish("\n".join(collector.lines), title=title, media_type="text/html", name=name)


def _collect(markup: str, skipped: frozenset[str], name: str) -> _TextCollector:
    collector = _TextCollector(skipped)
    try:
        collector.feed(markup)
        collector.close()
    except AssertionError as exc:  # _markupbase asserts on some malformed declarations
        raise ExtractError(
            f"{display_name(name)} could not be parsed as HTML ({exc}); "
            "save the page again from the browser and drop it again."
        ) from None
    return collector


def _decode_html(data: bytes, name: str) -> str:
    """Decode by BOM, then a <meta> charset that fits, then the text detection."""
    declared = _declared_charset(data)
    if declared is not None and not data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode(declared)
        except (UnicodeError, LookupError):  # LookupError: a codec that is not for text
            log.info("%s does not fit its declared charset %s", display_name(name), declared)
        else:
            check_is_text(text, name)
            return normalise_newlines(text)
    return decode_text(data, name)


def _declared_charset(data: bytes) -> str | None:
    match = _META_CHARSET.search(data[:_PRESCAN_BYTES])
    if match is None:
        return None
    try:
        canonical = codecs.lookup(match.group(1).decode("ascii")).name
    except LookupError:
        return None
    if canonical in _NOT_CHARSETS:
        return None
    return _CHARSET_ALIASES.get(canonical, canonical)
