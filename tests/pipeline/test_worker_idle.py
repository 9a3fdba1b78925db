"""The worker says when a run of work is done, once per run, so the daemon can give memory back."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from incremind_daemon.config import Settings
from incremind_daemon.daemon import prepare_home, release_free_memory
from incremind_daemon.pipeline.work import IngestFile
from incremind_daemon.pipeline.worker import Worker
from incremind_daemon.sources.extract import extract_bytes
from tests.waiting import wait_until


def test_idle_is_announced_once_after_each_run_of_work(settings: Settings, tmp_path: Path) -> None:
    prepare_home(settings)
    idle: list[float] = []
    announced = threading.Event()

    def on_idle() -> None:
        idle.append(time.monotonic())
        announced.set()

    worker = Worker(settings, extract_bytes, use_model=False, on_idle=on_idle)
    worker.start()
    try:
        for run in range(2):
            announced.clear()
            futures = []
            for n in range(3):
                note = tmp_path / f"run{run}-{n}.md"
                note.write_text(f"Idlerun{run} note {n}: the backup moved to Sunday night.\n", encoding="utf-8")
                futures.append(worker.submit(IngestFile(note, "daily")))
            assert all(f.result(timeout=30).status == "added" for f in futures)
            wait_until(announced.is_set, timeout=30)
            time.sleep(0.5)  # an idle worker does not keep announcing it
            assert len(idle) == run + 1
    finally:
        worker.stop()


def test_memory_can_be_released_on_this_system() -> None:
    release_free_memory()  # glibc's malloc_trim here; a no-op where there is none
