"""How long the studio takes to answer a DEEPFALL variant once compiled: a baseline, then
a variant on its games, through the studio's web interface (Starlette's test client),
timed from the request to the finished entry (its paired change included), with the
process's CPU seconds (every thread; on a loaded machine the wall time is not the answer:
the CPU seconds over the cores the kernels use bound it from below).

    .venv/bin/python tools/studio_timing.py [--games 20000]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
import warnings
from pathlib import Path

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from deepsim.studio.server import StudioConfig, create_app

ROOT = Path(__file__).resolve().parents[1]


def _run(c: TestClient, body: dict) -> tuple[float, dict]:
    t0, c0 = time.perf_counter(), time.process_time()
    job = c.post("/api/runs", json=body).json()
    while True:
        j = next(x for x in c.get("/api/runs").json()["runs"] if x["id"] == job["id"])
        if j["state"] in ("done", "failed", "cancelled"):
            break
        time.sleep(0.02)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert j["state"] == "done", j
    entry = c.get(f"/api/history/{job['id']}").json()
    entry["cpu_seconds"] = cpu
    return wall, entry


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--set", default="maw.steps_per_floor=4")
    a = ap.parse_args()
    folder = Path(tempfile.mkdtemp())
    shutil.copy(ROOT / "scenarios" / "deepfall-4p.yaml", folder)
    app = create_app(StudioConfig(folder, token="t").resolved())
    path, value = a.set.split("=", 1)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        c.cookies.set("deepsim_studio", "t")
        _run(c, {"scenario": "deepfall-4p.yaml", "games": 200})     # compile / load the cache
        wall, base = _run(c, {"scenario": "deepfall-4p.yaml", "games": a.games})
        print(f"baseline {a.games:,} games: {wall:.2f} s to the page "
              f"(play {base['play_seconds']:.2f} s; CPU {base['cpu_seconds']:.2f} s, all threads)")
        wall, var = _run(c, {"scenario": "deepfall-4p.yaml", "games": a.games,
                             "baseline": base["id"], "values": {path: value}})
        moved = sum(r["moved"] for r in var["paired"])
        print(f"variant {a.set}, {a.games:,} paired games: {wall:.2f} s to the page "
              f"(play {var['play_seconds']:.2f} s; CPU {var['cpu_seconds']:.2f} s, all threads; "
              f"{moved} verdicts moved)")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
