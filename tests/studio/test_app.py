"""The studio through its web interface at tiny game counts: a baseline, a variant on the
same games with its paired change, bad numbers, cancel, history after a restart, export."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from deepsim.errors import InputError
from deepsim.studio.runs import Cancelled, Request, play
from deepsim.studio.server import StudioConfig, create_app

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "t0k"
SCEN = "deepfall-4p.yaml"


@pytest.fixture
def folder(tmp_path):
    shutil.copy(ROOT / "scenarios" / SCEN, tmp_path / SCEN)
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "broken.yaml").write_text("name: b\nruleset: deepfall\n"
                                                       "games: -3\n")
    return tmp_path


@pytest.fixture
def open_client(test_client):
    """``open_client(folder)``: a client of a studio on ``folder``, holding the token's
    cookie (a restart is a second ``open_client(folder)``)."""

    def open_(where: Path):
        app = create_app(StudioConfig(where, token=TOKEN).resolved())
        c = test_client(app, base_url="http://127.0.0.1:8765")
        c.cookies.set("deepsim_studio", TOKEN)
        return c

    return open_


def _wait(c, job_id, timeout=240):
    t0 = time.time()
    while time.time() - t0 < timeout:
        job = next(j for j in c.get("/api/runs").json()["runs"] if j["id"] == job_id)
        if job["state"] in ("done", "failed", "cancelled"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"run {job_id} did not finish")


def test_scenarios_are_listed_with_the_bad_ones_and_their_error(folder, open_client):
    with open_client(folder) as c:
        d = c.get("/api/scenarios").json()
        by = {s["name"]: s for s in d["scenarios"]}
        assert d["default"] == SCEN
        assert by[SCEN]["ruleset"] == "deepfall" and not by[SCEN]["error"]
        assert "balanced" in by[SCEN]["bots"]
        assert "games" in by["scenarios/broken.yaml"]["error"]
        p = c.get("/api/scenario", params={"name": SCEN}).json()["parameters"]
        row = next(r for r in p if r["path"] == "maw.steps_per_floor")
        assert row["group"] == "maw" and row["type"] == "int" and "<=" in row["bounds"]
        assert any(r["placeholder"] for r in p)
        assert c.get("/api/scenario", params={"name": "scenarios/broken.yaml"}
                     ).status_code == 400


def test_a_variant_plays_the_same_games_and_shows_the_paired_change(folder, open_client):
    with open_client(folder) as c:
        r = c.post("/api/runs", json={"scenario": SCEN, "games": 200})
        assert r.status_code == 202
        base = _wait(c, r.json()["id"])
        assert base["state"] == "done", base
        e = c.get(f"/api/history/{base['id']}").json()
        s = e["summary"]
        assert e["games"] == 200 and e["paired"] is None
        assert s["faction_column"] == "company" and s["win_shares"]
        assert {"ci_low", "ci_high", "verdict", "ratio"} <= set(s["win_shares"][0])
        assert s["headline"] and s["field"] and s["seat_advantage"] and s["game_length"]
        r = c.post("/api/runs", json={"scenario": SCEN, "games": 999, "baseline": base["id"],
                                      "values": {"maw.steps_per_floor": 4}})
        assert r.status_code == 202
        var = _wait(c, r.json()["id"])
        assert var["state"] == "done", var
        v = c.get(f"/api/history/{var['id']}").json()
        assert v["games"] == 200 and v["seed"] == e["seed"]        # the baseline's games
        assert v["sets"] == ["maw.steps_per_floor=4"]
        rows = v["paired"]
        assert rows and all(r["paired"] for r in rows)
        assert {r["name"] for r in rows} == {r["name"] for r in s["win_shares"]}
        assert any(r["change"] != 0 for r in rows)
        for r in rows:
            assert r["low"] <= r["change"] <= r["high"]
            assert r["moved"] == (r["verdict_before"] != r["verdict_after"])
        # the export: a --set list, and a scenario file deepsim checks as any other
        assert c.get(f"/api/history/{var['id']}/export", params={"as": "sets"}
                     ).text == "--set 'maw.steps_per_floor=4'"
        text = c.get(f"/api/history/{var['id']}/export", params={"as": "scenario"}).text
        out = folder / "exported.yaml"
        out.write_text(text)
        from deepsim.gate.scenariofile import check_scenario_file
        scen = check_scenario_file(out)
        assert scen["games"] == 200 and scen["seed"] == e["seed"]
        trace = c.get(f"/api/history/{var['id']}/trace", params={"game": 3})
        assert trace.status_code == 200 and "game 3" in trace.text
        assert c.get(f"/api/history/{var['id']}/trace", params={"game": 200}
                     ).status_code == 404
        ids = [x["id"] for x in c.get("/api/history").json()["entries"]]
    # a restart reads the same history
    with open_client(folder) as c:
        assert [x["id"] for x in c.get("/api/history").json()["entries"]] == ids
        assert set(ids) == {base["id"], var["id"]}


@pytest.mark.parametrize("values, words, bound", [
    ({"maw.steps_per_floor": 999}, ["maw.steps_per_floor"], True),
    ({"maw.steps_per_floor": "abc"}, ["maw.steps_per_floor", "integer"], True),
    ({"maw.no_such_thing": 1}, ["maw.no_such_thing"], False),
])
def test_bad_numbers_get_a_message_naming_the_parameter_and_bounds(folder, open_client, spf_max,
                                                                  values, words, bound):
    with open_client(folder) as c:
        r = c.post("/api/runs", json={"scenario": SCEN, "games": 10, "values": values})
        assert r.status_code == 400
        msg = r.json()["error"]
        for w in [*words, spf_max] if bound else words:
            assert w in msg, msg
        assert "Traceback" not in msg
        assert c.get("/api/runs").json()["runs"] == []     # nothing was queued
        for games in (0, -1, "many", 10**9, True):
            r = c.post("/api/runs", json={"scenario": SCEN, "games": games})
            assert r.status_code == 400 and "games" in r.json()["error"]


def test_a_cancelled_run_leaves_no_history_entry(folder, open_client):
    history = folder / "reports" / "studio"
    history.mkdir(parents=True)
    calls = []
    with pytest.raises(Cancelled):
        play(Request(SCEN, 2000), folder=folder, history=history, entry_id="20260101-000000-"
             "000001", progress=lambda d, t: calls.append(d), on_compile=lambda m: None,
             cancelled=lambda: len(calls) >= 1)
    assert list(history.iterdir()) == []
    with open_client(folder) as c:
        r = c.post("/api/runs", json={"scenario": SCEN, "games": 50_000})
        job = c.post(f"/api/runs/{r.json()['id']}/cancel").json()
        assert _wait(c, job["id"])["state"] == "cancelled"
        assert c.get("/api/history").json()["entries"] == []
        assert not any(p.name.startswith(".pending") for p in history.iterdir())


def test_a_failed_run_shows_its_error_and_the_server_stays_up(folder, monkeypatch,
                                                                open_client):
    from deepsim.studio import jobs

    def boom(req, **kw):
        raise RuntimeError("the disk caught fire")

    monkeypatch.setattr(jobs, "play", boom)
    with open_client(folder) as c:
        r = c.post("/api/runs", json={"scenario": SCEN, "games": 20})
        job = _wait(c, r.json()["id"])
        assert job["state"] == "failed" and "the disk caught fire" in job["error"]
        assert c.get("/api/history").json()["entries"] == []
        monkeypatch.undo()
        r = c.post("/api/runs", json={"scenario": SCEN, "games": 20})
        assert _wait(c, r.json()["id"])["state"] == "done"      # still serving


def test_a_variant_needs_a_baseline_of_its_scenario(folder, open_client):
    with open_client(folder) as c:
        r = c.post("/api/runs", json={"scenario": SCEN, "games": 10,
                                      "baseline": "20260101-000000-000009"})
        assert r.status_code == 400 and "no history entry" in r.json()["error"]
    with pytest.raises(InputError, match="not a history entry"):
        play(Request(SCEN, 10, baseline="../x"), folder=folder, history=folder,
             entry_id="x", progress=print, on_compile=print, cancelled=lambda: False)


@pytest.mark.slow
def test_an_entry_opens_its_full_html_report(folder, open_client):
    """The full balance report (``deepsim report``) of an entry, written on first asking:
    slow (the DEEPFALL report draws its plots)."""
    with open_client(folder) as c:
        r = c.post("/api/runs", json={"scenario": SCEN, "games": 100})
        job = _wait(c, r.json()["id"])
        assert c.get(f"/api/history/{job['id']}/report/nope.html").status_code == 404
        rep = c.get(f"/api/history/{job['id']}/report/")
        assert rep.status_code == 200 and "<html" in rep.text.lower()
        assert (folder / "reports" / "studio" / job["id"] / "report" / "report.html").is_file()
        assert c.get(f"/api/history/{job['id']}/report/..%2F..%2Fentry.json"
                     ).status_code == 404


def test_a_cooperative_ruleset_shows_the_party_against_its_target(tmp_path, open_client):
    shutil.copy(ROOT / "scenarios" / "bank.yaml", tmp_path / "bank.yaml")
    with open_client(tmp_path) as c:
        r = c.post("/api/runs", json={"scenario": "bank.yaml", "games": 100})
        job = _wait(c, r.json()["id"])
        assert job["state"] == "done", job
        party = c.get(f"/api/history/{job['id']}").json()["summary"]["party"]
        assert party["lines"][0].startswith("Party wins")
        overall = next(x for x in party["rates"] if x["group"] == "all")
        assert overall["low"] <= overall["rate"] <= overall["high"] and overall["verdict"]
        assert party["effects"]
