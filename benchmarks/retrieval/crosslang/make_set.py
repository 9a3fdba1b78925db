"""Write crosslang.json from material.py and questions.py, after checking every rule of the set.

    PYTHONPATH=. python benchmarks/retrieval/crosslang/make_set.py           # write and print the counts
    PYTHONPATH=. python benchmarks/retrieval/crosslang/make_set.py --check   # the file is what this makes

Rules: every quote is verbatim in its item; a cross question is in the other language than every
quote of its evidence, a control question in the same one; items are 300 to 1,500 characters.
The half is fixed by the evidence item's place (README): items 1-2 tune, 3-4 held out, 5-6 tune, …
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from benchmarks.retrieval.crosslang.material import ITEMS
from benchmarks.retrieval.crosslang.questions import CONTROL, CROSS, Evidence

HERE = Path(__file__).resolve().parent
OUT = HERE / "crosslang.json"


def language(text: str) -> str:
    """zh when Han characters are at least a third of the letters, else en."""
    han = sum("\u4e00" <= c <= "\u9fff" for c in text)
    latin = sum(c.isascii() and c.isalpha() for c in text)
    return "zh" if han * 3 >= han + latin else "en"


def half_of(item_id: str) -> str:
    """Items in pairs by number: m01-m02 tune, m03-m04 held out, m05-m06 tune, …"""
    return "tune" if (int(item_id[1:]) - 1) // 2 % 2 == 0 else "heldout"


def build() -> dict[str, object]:
    """Check the rules and return the set as one JSON-ready object."""
    texts = {item.id: item.text for item in ITEMS}
    problems: list[str] = []
    for item in ITEMS:
        if not 300 <= len(item.text) <= 1_500:
            problems.append(f"{item.id} is {len(item.text)} characters")
    questions: list[dict[str, object]] = []

    def add(kind: str, prefix: str, entries: tuple[tuple[str, Evidence], ...]) -> None:
        for n, (question, evidence) in enumerate(entries, start=1):
            qid = f"{prefix}{n:03d}"
            lang = language(question)
            for item_id, quote in evidence:
                if quote not in texts[item_id]:
                    problems.append(f"{qid}: quote not in {item_id}: {quote!r}")
                same = language(quote) == lang
                if same != (kind == "control"):
                    problems.append(f"{qid}: {kind} question in {lang}, evidence {language(quote)}: {quote!r}")
            questions.append(
                {
                    "id": qid,
                    "kind": kind,
                    "lang": lang,
                    "half": half_of(evidence[0][0]),
                    "question": question,
                    "evidence": [{"item": i, "quote": q} for i, q in evidence],
                }
            )

    add("cross", "x", CROSS)
    add("control", "c", CONTROL)
    if problems:
        raise SystemExit("\n".join(problems))
    items = [
        {"id": i.id, "project": i.project, "lang": i.lang, "kind": i.kind, "title": i.title, "text": i.text}
        for i in ITEMS
    ]
    return {"items": items, "questions": questions}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write (or --check) crosslang.json.")
    parser.add_argument("--check", action="store_true", help="exit 1 when the file differs from what is made")
    args = parser.parse_args(argv)
    text = json.dumps(build(), ensure_ascii=False, indent=1) + "\n"
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print("crosslang.json is up to date" if same else "crosslang.json differs: run make_set.py")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    data = json.loads(text)
    counts = Counter((q["kind"], q["lang"], q["half"]) for q in data["questions"])
    lengths = sorted(len(i["text"]) for i in data["items"])
    languages = dict(Counter(i["lang"] for i in data["items"]))
    print(f"items: {len(lengths)} ({languages}), characters {lengths[0]}…{lengths[-1]}")
    for key in sorted(counts):
        print(" ".join(key), counts[key])
    return 0


if __name__ == "__main__":
    sys.exit(main())
