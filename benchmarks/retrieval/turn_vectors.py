"""Rank each question's evidence by cosine per conversation turn and per passage, to see which finds it sooner.

Run from the repository root:

    PYTHONPATH=. python benchmarks/retrieval/turn_vectors.py [--half tune|heldout]

For every conversation in ``conversations/``, each turn ("speaker: text") is embedded alone, and
consecutive turns of a session are packed into passages of up to 384 characters, as the product
packs a chat. Each question of the half is embedded as a query; for each evidence turn the script
prints how often the turn is among the first 5 / 10 / 20 turns of its conversation by cosine, and
how often its passage is among the first 2 / 5 / 10 passages (retrieval README, "A vector per
conversation turn"). HOME and INCREMIND_HOME point into a fresh temporary folder first.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.isolation import isolate_home

isolate_home("incremind-turn-vectors-")  # before incremind_daemon is imported

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

from incremind_daemon.embedding.use_m3 import UseM3Embedder  # noqa: E402

HERE = Path(__file__).parent / "conversations"
PASSAGE_CHARS = 384


def unit(rows: list[list[float]] | npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    matrix = np.asarray(rows, dtype=np.float32)
    return matrix / np.linalg.norm(matrix, axis=-1, keepdims=True)


def packed(sessions: list[dict[str, object]]) -> tuple[list[str], list[str], list[str], list[list[str]]]:
    """Return turn ids, turn texts, passages and the turn ids of each passage."""
    ids, texts, passages, owners = [], [], [], []
    for session in sessions:
        text, owned = "", []
        for turn in session["turns"]:  # type: ignore[attr-defined]
            line = f"{turn['speaker']}: {turn['text']}"
            ids.append(turn["id"])
            texts.append(line)
            if text and len(text) + len(line) > PASSAGE_CHARS:
                passages.append(text)
                owners.append(owned)
                text, owned = "", []
            text += ("\n" if text else "") + line
            owned.append(turn["id"])
        if text:
            passages.append(text)
            owners.append(owned)
    return ids, texts, passages, owners


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("tune", "heldout"), default="tune")
    args = parser.parse_args()
    embedder = UseM3Embedder()
    print("conversation  turns / passages  turn in first 5 / 10 / 20  passage in first 2 / 5 / 10")
    for path in sorted(HERE.glob("conv-*.json")):
        conversation = json.loads(path.read_text(encoding="utf-8"))
        ids, texts, passages, owners = packed(conversation["sessions"])
        turn_vectors, passage_vectors = unit(embedder.embed_passages(texts)), unit(embedder.embed_passages(passages))
        turn_ranks, passage_ranks = [], []
        for question in conversation["questions"]:
            if question["half"] != args.half:
                continue
            query = unit(embedder.embed_query(question["question"])).reshape(-1)
            by_turn = {ids[i]: rank for rank, i in enumerate(np.argsort(-(turn_vectors @ query)))}
            by_passage: dict[str, int] = {}
            for rank, i in enumerate(np.argsort(-(passage_vectors @ query))):
                for turn_id in owners[i]:
                    by_passage.setdefault(turn_id, rank)
            for turn_id in question["evidence"]:
                turn_ranks.append(by_turn[turn_id])
                passage_ranks.append(by_passage[turn_id])
        turns, found = np.array(turn_ranks), np.array(passage_ranks)
        shares = " / ".join(f"{(turns < n).mean():.2f}" for n in (5, 10, 20))
        passage_shares = " / ".join(f"{(found < n).mean():.2f}" for n in (2, 5, 10))
        print(f"{path.stem:<13} {len(ids):>5} / {len(passages):<9} {shares:<26} {passage_shares}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
