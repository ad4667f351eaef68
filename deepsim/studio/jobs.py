"""The studio's one queue of runs, shared by every open tab: a worker thread plays the
runs one at a time (the kernels use every core already), each with its progress, its
cancel flag and, at the end, its entry or its error."""

from __future__ import annotations

import itertools
import queue
import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from deepsim.errors import InputError
from deepsim.studio.history import new_id
from deepsim.studio.runs import Cancelled, Request, play


@dataclass
class Job:
    """A queued run: ``state`` is queued, compiling, running, done, failed or cancelled."""

    id: str
    request: Request
    state: str = "queued"
    done: int = 0
    total: int = 0
    message: str = ""
    error: str = ""
    cancel: threading.Event = field(default_factory=threading.Event)

    def public(self) -> dict:
        return {"id": self.id, "state": self.state, "done": self.done, "total": self.total,
                "message": self.message, "error": self.error,
                "scenario": self.request.scenario, "sets": list(self.request.sets),
                "baseline": self.request.baseline, "games": self.request.games}


class Queue:
    """Runs ``play`` for each submitted request in one worker thread."""

    def __init__(self, folder: Path, history: Path):
        self.folder, self.history = folder, history
        self.jobs: dict[str, Job] = {}
        self._q: queue.Queue[Job | None] = queue.Queue()
        self._count = itertools.count()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._work, name="studio-runs", daemon=True)
        self._thread.start()

    def submit(self, req: Request) -> Job:
        with self._lock:
            job = Job(new_id(next(self._count)), req, total=req.games)
            self.jobs[job.id] = job
        self._q.put(job)
        return job

    def cancel(self, job_id: str) -> Job:
        job = self.jobs.get(job_id)
        if job is None:
            raise InputError(f"no run {job_id!r}")
        job.cancel.set()
        if job.state == "queued":
            job.state = "cancelled"
        return job

    def listing(self) -> list[dict]:
        """Every job of this session, newest first."""
        return [j.public() for j in sorted(self.jobs.values(), key=lambda j: j.id,
                                           reverse=True)]

    def stop(self, timeout: float = 5.0) -> None:
        """Cancel what is queued or running and end the worker."""
        for j in self.jobs.values():
            j.cancel.set()
        self._q.put(None)
        self._thread.join(timeout)

    def _work(self) -> None:
        while True:
            job = self._q.get()
            if job is None:
                return
            if job.cancel.is_set():
                job.state = "cancelled"
                continue
            job.state = "running"

            def progress(done: int, total: int, job=job) -> None:
                job.state, job.done, job.total, job.message = "running", done, total, ""

            def compiling(message: str, job=job) -> None:
                job.state, job.message = "compiling", message

            try:
                play(job.request, folder=self.folder, history=self.history, entry_id=job.id,
                     progress=progress, on_compile=compiling, cancelled=job.cancel.is_set)
                job.state, job.done = "done", job.total
            except Cancelled:
                job.state = "cancelled"
            except InputError as exc:
                job.state, job.error = "failed", str(exc)
            except Exception as exc:  # noqa: BLE001 - a failed run shows its error; the server stays up
                job.state = "failed"
                job.error = f"{type(exc).__name__}: {exc}"
                traceback.print_exc()
