"""Files that cannot be taken in, each with the words its error message must hold."""

from __future__ import annotations

from pathlib import Path

from tests.sources.make_files import make_pdf


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
