"""Decode text files and extract plain text and Markdown."""

from __future__ import annotations

import codecs
import logging
import re

from incremind_daemon.errors import ExtractError

from .extracted import Extracted, display_name, empty_error, finish

log = logging.getLogger(__name__)

# UTF-32 marks go first: the UTF-32-LE mark begins with the UTF-16-LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")  # C0/C1 except \t \n \v \f \r
_MAX_CONTROL_RATIO = 0.05
_MIN_GB18030_PLAUSIBLE = 0.95
# Ranges a GB18030 decode of real Chinese text lands in: CJK, kana, bopomofo,
# punctuation, full-width forms, and the Greek, Cyrillic and symbols GB2312 carries.
_GB_PLAUSIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00A0, 0x00FF),
    (0x0391, 0x03C9),
    (0x0401, 0x0451),
    (0x2000, 0x206F),
    (0x2100, 0x22FF),
    (0x2460, 0x27BF),
    (0x2E80, 0x2FDF),
    (0x3000, 0x312F),
    (0x31A0, 0x31FF),
    (0x3200, 0x33FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0xFE30, 0xFE4F),
    (0xFF00, 0xFFEF),
)
_GB_IMPLAUSIBLE = re.compile(
    "[^\\s\x20-\x7e" + "".join(f"{chr(low)}-{chr(high)}" for low, high in _GB_PLAUSIBLE_RANGES) + "]"
)
_SPACE = re.compile(r"\s")
_NEWLINES = re.compile(r"\r\n?")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_H1 = re.compile(r"^ {0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")


def binary_error(name: str) -> ExtractError:
    """Build the error for bytes that are not text in any encoding we read."""
    return ExtractError(
        f"{display_name(name)} looks like a binary file, not text (it is not UTF-8, "
        "UTF-16 with a BOM or GB18030); save it as UTF-8 text and drop it again."
    )


def normalise_newlines(text: str) -> str:
    """Turn CRLF and lone CR into LF."""
    return _NEWLINES.sub("\n", text)


def decode_text(data: bytes, name: str) -> str:
    """Decode bytes by BOM, then strict UTF-8, then plausible GB18030.

    The result has LF newlines and no BOM; it raises ExtractError for blank
    or binary input.
    """
    if not data.strip():
        raise empty_error(name)
    text = _decode_by_bom(data, name)
    if text is None:
        if b"\x00" in data:
            raise binary_error(name)
        text = _decode_without_bom(data, name)
    check_is_text(text, name)
    text = normalise_newlines(text)
    if not text.strip():
        raise empty_error(name)
    return text


def check_is_text(text: str, name: str) -> None:
    """Raise if decoded text has NULs or too many control characters."""
    if "\x00" in text:
        raise binary_error(name)
    if len(_CONTROL.findall(text)) > _MAX_CONTROL_RATIO * len(text):
        raise binary_error(name)


def extract_plain(data: bytes, name: str) -> Extracted:
    """Extract a .txt file."""
    return finish(decode_text(data, name), title="", media_type="text/plain", name=name)


def extract_markdown(data: bytes, name: str) -> Extracted:
    """Extract a Markdown file as-is; its title is the first '# ' heading."""
    text = decode_text(data, name)
    return finish(text, title=markdown_title(text), media_type="text/markdown", name=name)


def markdown_title(text: str) -> str:
    """Return the first level-one ATX heading outside code fences, or ''."""
    fence: str | None = None
    for line in text.split("\n"):
        opener = _FENCE.match(line)
        if opener:
            if fence is None:
                fence = opener.group(1)
            elif opener.group(1) == fence:
                fence = None
            continue
        if fence is None and (heading := _H1.match(line)):
            return heading.group(1)
    return ""


def _decode_by_bom(data: bytes, name: str) -> str | None:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding)
            except UnicodeDecodeError:
                raise binary_error(name) from None
    return None


def _decode_without_bom(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        raise binary_error(name) from None
    if not _is_plausible_chinese(text):
        raise binary_error(name)
    log.debug("decoded %s as GB18030", display_name(name))
    return text


def _is_plausible_chinese(text: str) -> bool:
    visible = len(text) - len(_SPACE.findall(text))
    implausible = len(_GB_IMPLAUSIBLE.findall(text))
    return implausible <= (1 - _MIN_GB18030_PLAUSIBLE) * visible
