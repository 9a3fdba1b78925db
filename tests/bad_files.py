"""Files and transcripts that cannot be taken in, or can only just be, with what must become of each."""

from __future__ import annotations

import io
import json
import os
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

try:
    import zstandard
except ImportError:  # the optional zstd extra is not installed: no compressed rollouts to attack
    zstandard = None

from tests.sources.make_files import W_NS, docx_bytes, make_pdf, pdf_bytes
from tests.transcripts import ClaudeLog, CodexLog, GeminiLog


def write_bad_files(folder: Path) -> dict[str, str]:
    """Write one file of each kind of failure; return name -> expected words in the error."""
    folder.mkdir(parents=True, exist_ok=True)
    make_pdf(folder / "locked.pdf", ["secret plans"], user_password="pw")
    make_pdf(folder / "scan.pdf", [""])
    (folder / "broken.docx").write_bytes(b"PK\x03\x04 this is not a zip archive")
    (folder / "binary.txt").write_bytes(bytes(range(256)) * 8)
    (folder / "empty.md").write_bytes(b"")
    (folder / "huge.txt").write_bytes(b"a" * (2 * 1024 * 1024 + 10))
    return {
        "locked.pdf": "encrypted",
        "scan.pdf": "no text",
        "broken.docx": "not a valid DOCX",
        "binary.txt": "binary",
        "empty.md": "empty",
        "huge.txt": "over the 2 MB limit",
    }


@dataclass(frozen=True, slots=True)
class Expected:
    """What must become of one hostile item.

    stored: its text holds ``words`` in exactly one source. failed: it sits in
    the failed folder as ``failed_as`` beside a note holding ``words``.
    ignored: nothing holding ``words`` is ever stored, and the item is left where it was.
    """

    outcome: str
    words: str = ""
    failed_as: str | None = None


# --- files that make parsers work hard ------------------------------------------------


def slow_pdf_bytes(*, operators: int = 100_000, pages: int = 40) -> bytes:
    """A few KB of PDF whose pages share one content stream inflating to millions of text operators.

    pypdf spends seconds per page on it, minutes in all: the shape of a parser loop.
    """
    content = b"BT /F1 12 Tf 10 10 Td " + b"(a) Tj 1 0 Td " * operators + b"ET"
    packed = zlib.compress(content, 9)
    kids = " ".join(f"{5 + index} 0 R" for index in range(pages)).encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(packed), packed),
    ]
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"
    )
    objects.extend(page for _ in range(pages))
    return pdf_from_objects(objects)


def pdf_from_objects(objects: list[bytes]) -> bytes:
    """Number the objects from 1, with the catalog first, and add the xref table and trailer."""
    out = bytearray(b"%PDF-1.4\n")
    offsets: list[int] = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def looping_pages_pdf() -> bytes:
    """A page tree that lists itself among its kids."""
    return pdf_from_objects(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
            b"<< /Length 20 >>\nstream\nBT (hi) Tj ET\nendstream",
        ]
    )


def recursive_form_pdf() -> bytes:
    """A page that draws a form XObject that draws itself."""
    form = b"<< /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources << /XObject << /X1 5 0 R >> >> /Length 7 >>"
    return pdf_from_objects(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /XObject << /X1 5 0 R >> >> /Contents 4 0 R >>",
            b"<< /Length 7 >>\nstream\n/X1 Do\nendstream",
            form + b"\nstream\n/X1 Do\nendstream",
        ]
    )


def _package(parts: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        for name, data in parts.items():
            package.writestr(name, data)
    return buffer.getvalue()


def _document(body: str) -> bytes:
    return f'<w:document xmlns:w="{W_NS}"><w:body>{body}</w:body></w:document>'.encode()


def zip_bomb_docx(inflated: int = 64 << 20) -> bytes:
    """A DOCX whose document part inflates about a thousand times."""
    return _package({"word/document.xml": _document("<w:p><w:r><w:t>" + " " * inflated + "</w:t></w:r></w:p>")})


def entity_bomb_docx() -> bytes:
    """The billion-laughs entity expansion inside a DOCX part."""
    lol = '<!DOCTYPE w [<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9)
    )
    return _package({"word/document.xml": (lol + "]>").encode() + _document("<w:p><w:r><w:t>&j;</w:t></w:r></w:p>")})


def deep_docx(depth: int = 20_000) -> bytes:
    """A DOCX paragraph nested twenty thousand elements deep (small enough to pass the bomb check)."""
    inner = "<w:r>" * depth + "<w:t>deep</w:t>" + "</w:r>" * depth
    return _package({"word/document.xml": _document(f"<w:p>{inner}</w:p>")})


# --- the inbox corpus -----------------------------------------------------------------


def write_hostile_inbox(inbox: Path, outside: Path, *, slow_pdf: bool) -> dict[str, Expected]:
    """Fill an inbox with hostile and broken files; return relative name -> Expected.

    ``outside`` is a folder beside the inbox that links point into; nothing
    from it (words starting "Wombat") may ever be stored. Run the daemon with inbox.max_file_mb=2.
    """
    inbox.mkdir(parents=True, exist_ok=True)
    outside.mkdir(parents=True, exist_ok=True)
    expected: dict[str, Expected] = {}

    def put(name: str, data: bytes, outcome: str, words: str, failed_as: str | None = None) -> None:
        path = inbox / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        expected[name] = Expected(outcome, words, failed_as)

    for name, words in write_bad_files(inbox).items():
        expected[name] = Expected("failed", words)
    # formats whose parsers can be made to work hard or blow up
    put("bomb.docx", zip_bomb_docx(), "failed", "zip bomb")
    put("entities.docx", entity_bomb_docx(), "failed", "not a valid DOCX")
    put("deep.docx", deep_docx(), "failed", "not a valid DOCX")
    put("no-document.docx", _package({"word/other.xml": b"<x/>"}), "failed", "not a valid DOCX")
    put("plain-zip.docx", _package({"readme.txt": b"just a zip"}), "failed", "not a valid DOCX")
    put("garbage.pdf", os.urandom(4096), "failed", "damaged")
    put("truncated.pdf", pdf_bytes(["cut short"])[:200], "failed", "damaged")
    put("pages-loop.pdf", looping_pages_pdf(), "failed", "damaged")
    put("form-loop.pdf", recursive_form_pdf(), "failed", "no text layer")
    if slow_pdf:
        put("slow.pdf", slow_pdf_bytes(), "failed", "took longer than")
    put("fine.pdf", pdf_bytes(["Platypus01 is a well formed page."]), "stored", "Platypus01")
    put("fine.docx", docx_bytes(["Platypus02 sits in a plain paragraph."]), "stored", "Platypus02")
    # nesting, NUL bytes and huge values
    put("deep.json", b"[" * 100_000 + b"]" * 100_000, "failed", "nested more than")
    put("deep-object.json", b'{"a":' * 5_000 + b"1" + b"}" * 5_000, "failed", "nested more than")
    put("deep-lines.jsonl", (b"[" * 50_000 + b"]" * 50_000 + b"\n") * 3, "failed", "no valid JSON line")
    put("long-number.json", b'{"n": ' + b"9" * 50_000 + b"}", "failed", "cannot be read")
    put("invalid.json", b'{"a": [1, 2', "failed", "not valid JSON")
    put("nul.md", b"# Title\n\nsome\x00text\n", "failed", "binary")
    put("nul.txt", b"plain text " * 50 + b"\x00" + b"more", "failed", "binary")
    put("nul.json", b'{"a": "b\x00"}', "failed", "binary")
    put("nul.csv", b"a,b\n1,\x002\n", "failed", "binary")
    put("nul.html", b"<p>hello\x00</p>", "failed", "binary")
    put("controls.txt", bytes(range(1, 32)) * 40, "failed", "binary")
    put("bom-only.txt", b"\xef\xbb\xbf", "failed", "empty")
    put("spaces.md", b" \n\t\n   \n", "failed", "empty")
    put("script-only.html", b"<script>alert(1)</script><style>p{}</style>", "failed", "empty")
    put("huge-field.csv", b'a,b\n"' + b"x" * 200_000 + b'",2\n', "failed", "could not be read as CSV")
    put("single-line.jsonl", b'{"k": "' + b"Platypus03 " * 20_000 + b'"}', "stored", "Platypus03")
    put("no-newline.md", b"Platypus04" + b"x" * 200_000, "stored", "Platypus04")
    put("deep.html", b"<div>" * 20_000 + b"Platypus05 deep text" + b"</div>" * 20_000, "stored", "Platypus05")
    put("mixed.jsonl", b'{"a": "Platypus06"}\n{broken\n[[[\n', "stored", "Platypus06")
    put("gb.txt", "Platypus07 中文笔记，按时复习。".encode("gb18030"), "stored", "Platypus07")
    put("crlf.md", b"Platypus08 line one\r\rline two\r\n", "stored", "Platypus08")
    put("program.exe", b"MZ\x90\x00", "failed", "unsupported type")
    put("no-suffix", b"Platypus text without a suffix", "failed", "unsupported type")
    big = inbox / "hundred-mb.jsonl"  # sparse: its size is refused before a byte is read
    with big.open("wb") as handle:
        handle.write(b'{"k": "')
        handle.truncate(100 << 20)
    expected[big.name] = Expected("failed", "over the 2 MB limit")
    # names
    put("new\nline.md", b"Platypus09 has a newline in its name", "stored", "Platypus09")
    put("ctl\x01\x1bname.txt", b"Platypus10 has control characters in its name", "stored", "Platypus10")
    put("a..b.txt", b"Platypus11 has dots in its name", "stored", "Platypus11")
    put("..dots-first.txt", b"Platypus12 starts with dots, so it is hidden", "ignored", "Platypus12")
    put("x" * 250 + ".txt", b"Platypus13 has a very long name", "stored", "Platypus13")
    put("y" * 251 + ".txt", b"\x00\x01 binary with a very long name", "failed", "binary", "y" * 241 + ".txt")
    cjk = "长" * 82  # 246 bytes: the failed note's name must not cut a character in two
    put(cjk + ".md", b"", "failed", "empty", "长" * 80 + ".md")
    put(os.fsdecode(b"caf\xe9.txt"), b"Platypus14 has a Latin-1 name", "stored", "Platypus14")
    put(os.fsdecode(b"bin\xff.txt"), b"\x00\x00", "failed", "binary", "bin\\xff.txt")
    put("spaced (1).txt", b"Platypus15 has brackets", "stored", "Platypus15")
    put("inbox.error.txt", b"Platypus16 looks like a failure note but is not", "stored", "Platypus16")
    put("we ird\nproject/note.md", b"Platypus17 in an oddly named project", "stored", "Platypus17")
    put("/".join(f"d{i}" for i in range(40)) + "/deep.md", b"Platypus18 forty folders down", "stored", "Platypus18")
    put("p1/same.txt", b"", "failed", "empty")
    put("p2/same.txt", b" ", "failed", "empty", "same (2).txt")
    # links and special files
    (outside / "secret.txt").write_text("Wombat01 lives outside the inbox", encoding="utf-8")
    (inbox / "link.txt").symlink_to(outside / "secret.txt")
    expected["link.txt"] = Expected("failed", "symbolic link")
    (inbox / "dangling.md").symlink_to(outside / "missing.md")
    expected["dangling.md"] = Expected("failed", "symbolic link")
    (outside / "folder").mkdir(exist_ok=True)
    (outside / "folder" / "inside.txt").write_text("Wombat02 in a linked folder", encoding="utf-8")
    (inbox / "linked-folder").symlink_to(outside / "folder", target_is_directory=True)
    expected["linked-folder"] = Expected("failed", "symbolic link")
    os.mkfifo(inbox / "pipe.txt")
    expected["pipe.txt"] = Expected("failed", "not a regular file")
    return expected


def failed_name(name: str, expectation: Expected) -> str:
    """Return the name a failed item must have in the failed folder."""
    return expectation.failed_as or Path(name).name


# --- the transcript corpus ------------------------------------------------------------


def write_hostile_transcripts(home: Path, outside: Path, *, huge_line_mb: int = 20) -> dict[str, Expected]:
    """Write hostile transcripts into the agents' folders under home; return label -> Expected.

    Every good line carries a word that must be stored once; hostile lines and
    files outside the agents' folders carry words starting "Wombat" that must never be stored.
    """
    outside.mkdir(parents=True, exist_ok=True)
    claude_root, codex_root, gemini_root = home / ".claude", home / ".codex", home / ".gemini"
    expected: dict[str, Expected] = {}
    cwd = str(home / "code" / "atlas")

    claude = ClaudeLog(claude_root, "11111111-1111-4111-8111-111111111111", cwd)
    huge = json.dumps(
        {"type": "user", "message": {"role": "user", "content": "Wombat03 " + "z" * (huge_line_mb << 20)}}
    )
    deep = "[" * 100_000 + "]" * 100_000
    claude.append(
        claude.user("u1", "Numbat01 before the hostile lines"),
        huge + "\n",
        deep + "\n",
        '{"type": "user", "uuid": "u0", "message": {"role": "user", "content": "Numbat07\\u0000 escaped NUL"}}\n',
    )
    with claude.path.open("ab") as handle:
        handle.write(b"\x00\xff\xfe garbage \x00\n" + b'{"type": ' * 10_000 + b"\n")
    claude.append(claude.assistant("a1", "m1", "Numbat02 after the hostile lines"))
    expected["claude huge line"] = Expected("ignored", "Wombat03")
    expected["claude line before"] = Expected("stored", "Numbat01")
    expected["claude line after"] = Expected("stored", "Numbat02")
    expected["claude escaped NUL"] = Expected("stored", "Numbat07")

    secret = outside / "secret.jsonl"
    secret.write_text(ClaudeLog(outside, "x", cwd).user("s1", "Wombat05 outside the agent folder"), encoding="utf-8")
    (claude.path.parent / "22222222-2222-4222-8222-222222222222.jsonl").symlink_to(secret)
    expected["claude linked file"] = Expected("ignored", "Wombat05")
    linked = outside / "linked-project"
    linked.mkdir(exist_ok=True)
    (linked / "33333333-3333-4333-8333-333333333333.jsonl").write_text(
        ClaudeLog(outside, "y", cwd).user("s2", "Wombat06 in a linked project folder"), encoding="utf-8"
    )
    (claude_root / "projects" / "linked-project").symlink_to(linked, target_is_directory=True)
    expected["claude linked folder"] = Expected("ignored", "Wombat06")
    os.mkfifo(claude.path.parent / "44444444-4444-4444-8444-444444444444.jsonl")
    expected["claude pipe"] = Expected("ignored", "")
    bad_name = claude.path.parent / os.fsdecode(b"55555555-\xff.jsonl")
    bad_name.write_text(ClaudeLog(outside, "z", cwd).user("s3", "Wombat07 under a name that is not UTF-8"))
    expected["claude non-UTF-8 name"] = Expected("ignored", "Wombat07")

    codex = CodexLog(codex_root, "66666666-6666-4666-8666-666666666666", cwd)
    codex.append(codex.meta(), codex.user("Numbat03 asks codex"))
    with codex.path.open("ab") as handle:
        handle.write(os.urandom(2048).replace(b"\n", b" ") + b"\n" + b"\x00" * 1000 + b"\n")
    codex.append(codex.assistant("Numbat04 answers after the noise"))
    expected["codex noise"] = Expected("stored", "Numbat04")
    garbage = codex.path.with_name("rollout-2026-11-30T10-00-01-77777777-7777-4777-8777-777777777777.jsonl")
    garbage.write_bytes(os.urandom(64 << 10))
    expected["codex random bytes"] = Expected("ignored", "")
    if zstandard is not None:
        _write_zstd_bomb(codex.path.with_name("rollout-2026-11-30T10-00-02-8888-4888-8888-888888888888.jsonl.zst"))
        expected["codex zstd bomb"] = Expected("ignored", "Wombat08")

    gemini = GeminiLog(gemini_root, "99999999-9999-4999-8999-999999999999", cwd)
    gemini.append(gemini.meta(), gemini.message("g1", "user", "Numbat05 asks gemini"))
    with gemini.path.open("ab") as handle:
        handle.write(b'{"id": "g2", "type": "gemini", "content": ' + b"[" * 60_000 + b"]" * 60_000 + b"}\n")
    gemini.append(gemini.message("g3", "gemini", "Numbat06 answers gemini"))
    expected["gemini deep line"] = Expected("stored", "Numbat06")
    deep_json = gemini.path.with_name("session-2026-11-30T12-01-aaaaaaaa.json")
    deep_json.write_bytes(b'{"messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    expected["gemini deep legacy json"] = Expected("ignored", "")
    return expected


def _write_zstd_bomb(path: Path) -> None:
    """A few KB inflating to 64 MB in one line, then a line of text that is never reached whole."""
    payload = b'{"type": "x", "payload": "' + b"a" * (64 << 20) + b' Wombat08"}\n'
    path.write_bytes(zstandard.ZstdCompressor(level=3).compress(payload))
