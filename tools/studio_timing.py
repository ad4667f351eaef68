"""How long the studio takes to answer a DEEPFALL variant once compiled: a baseline, then
a variant on its games, through the studio's web interface (Starlette's test client),
timed from the request to the finished entry (its paired change included).

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
    t0 = time.perf_counter()
    job = c.post("/api/runs", json=body).json()
    while True:
        j = next(x for x in c.get("/api/runs").json()["runs"] if x["id"] == job["id"])
        if j["state"] in ("done", "failed", "cancelled"):
            break
        time.sleep(0.02)
    wall = time.perf_counter() - t0
    assert j["state"] == "done", j
    return wall, c.get(f"/api/history/{job['id']}").json()


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
              f"(play {base['play_seconds']:.2f} s)")
        wall, var = _run(c, {"scenario": "deepfall-4p.yaml", "games": a.games,
                             "baseline": base["id"], "values": {path: value}})
        moved = sum(r["moved"] for r in var["paired"])
        print(f"variant {a.set}, {a.games:,} paired games: {wall:.2f} s to the page "
              f"(play {var['play_seconds']:.2f} s; {moved} verdicts moved)")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
