"""Seat rotation (``rotate_seats: true``, deepsim.rotation) in both rulesets: each game
index (a deal) is played in every rotation of the seat order on the same dungeon or map and
dice stream; rows, columns and clusters; the report's notes and B2 on fixed seats."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from deepsim import runner
from deepsim.cli import app
from deepsim.errors import InputError

cli = CliRunner(env={"COLUMNS": "120"})

FIXED = """\
name: fixed3
ruleset: deepfall
games: {games}
seed: 3
chunk_size: 100
players: 3
companies: {{unique: true}}
seats:
  - {{lineage: wisp, calling: wardancer, bot: greedy}}
  - {{lineage: dvergar, calling: reaver, bot: balanced}}
  - {{lineage: golem_born, calling: warden, bot: martyr}}
"""
ATLANTIS = """\
name: atl-rot
ruleset: atlantis
games: {games}
seed: 4
chunk_size: 50
sides:
  sea_witch: {{bot: aggressive}}
  sea_king: {{bot: defensive}}
"""


def _write(tmp_path: Path, text: str, name: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.fixture()
def deepfall(tmp_path):
    plain = _write(tmp_path, FIXED.format(games=60), "fixed.yaml")
    rot = _write(tmp_path, FIXED.format(games=60) + "rotate_seats: true\n", "rot.yaml")
    return plain, rot


def test_deepfall_rows_columns_and_seats(deepfall):
    plain, rot = deepfall
    rs, _, prep = runner.resolve(rot)
    assert (prep.scenario["games"], prep.scenario["deals"], prep.scenario["rotations"]) == \
        (180, 60, 3)
    games, seats = rs.run_chunk(prep, 0, 180)
    assert list(games.columns[:3]) == ["game", "deal", "rotation"]
    assert games["game"].tolist() == list(range(180))
    assert (games["deal"] == games["game"] // 3).all()
    assert (games["rotation"] == games["game"] % 3).all()
    assert (seats["rotation"] == seats["game"] % 3).all()
    # in rotation k, seat p plays what seat (p + k) mod 3 plays without rotation (seats
    # numbered from 1: row.seat - 1 is the scenario's seats list index)
    order = ["Wisp Wardancer", "Dvergar Reaver", "Golem-born Warden"]
    bots = ["greedy", "balanced", "martyr"]
    for row in seats.itertuples():
        src = (row.seat - 1 + row.rotation) % 3
        assert row.company == order[src] and row.bot == bots[src]
    # every company sits in every seat once per deal
    assert (seats.groupby(["company", "seat"], observed=True).size() == 60).all()
    # rotation 0 is the plain scenario's game, bit for bit
    rs0, _, prep0 = runner.resolve(plain)
    g0, s0 = rs0.run_chunk(prep0, 0, 60)
    mine = games[games["rotation"] == 0].drop(columns=["deal", "rotation"])
    mine = mine.assign(game=mine["game"] // 3).reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, g0)
    mine_s = seats[seats["rotation"] == 0].drop(columns=["rotation"])
    mine_s = mine_s.assign(game=mine_s["game"] // 3).reset_index(drop=True)
    pd.testing.assert_frame_equal(mine_s, s0)
    # the plain scenario resolves as before: no rotation key, no new column
    assert "rotate_seats" not in prep0.scenario and "deal" not in g0.columns


def test_deepfall_same_dungeon_in_every_rotation(deepfall):
    from deepsim.rulesets.deepfall import layout as L
    from deepsim.rulesets.deepfall.kernel import trace_game

    _, rot = deepfall
    _, _, prep = runner.resolve(rot)
    for deal in (0, 7, 41):
        setups = []
        for arrays in prep.compiled["rotations"]:
            *_, ev = trace_game(np.int64(3), np.int64(deal), 50_000, *arrays.kernel_args())
            setups.append(ev[ev[:, 2] == L.EV_SETUP].tolist())
        assert setups[0] == setups[1] == setups[2] and setups[0]


def test_deepfall_chunks_threads_and_trace(deepfall):
    _, rot = deepfall
    rs, _, prep = runner.resolve(rot)
    whole = rs.run_chunk(prep, 0, 90)
    parts = [rs.run_chunk(prep, a, b) for a, b in ((0, 7), (7, 40), (47, 43))]
    for k in range(2):
        pd.testing.assert_frame_equal(whole[k], pd.concat([p[k] for p in parts],
                                                          ignore_index=True))
    g, s = rs.trace_result(prep, 40)                  # deal 13, rotation 1
    assert g["game"].tolist() == [40] and g["deal"].tolist() == [13]
    pd.testing.assert_frame_equal(g.reset_index(drop=True),
                                  whole[0].iloc[[40]].reset_index(drop=True))
    pd.testing.assert_frame_equal(s.reset_index(drop=True), whole[1][whole[1]["game"] == 40]
                                  .reset_index(drop=True))
    lines = rs.trace(prep, 40)
    assert lines[0].startswith("DEEPFALL game 40 (deal 13, seat rotation 1 of 3)")


def test_deepfall_rotation_needs_fixed_seats_and_one_count(tmp_path):
    no_seats = _write(tmp_path, "name: x\nruleset: deepfall\ngames: 10\nseed: 1\n"
                                "players: 3\nrotate_seats: true\n", "a.yaml")
    with pytest.raises(InputError, match="rotate_seats rotates fixed seats"):
        runner.resolve(no_seats)
    mixed = _write(tmp_path, FIXED.format(games=10).replace("players: 3", "players: [2, 3]")
                   + "rotate_seats: true\n", "b.yaml")
    with pytest.raises(InputError, match="needs one player count"):
        runner.resolve(mixed)
    res = cli.invoke(app, ["run", str(no_seats), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "a.yaml:6, key 'rotate_seats'" in res.output


def test_atlantis_rotation_swaps_the_first_side_on_the_same_map(tmp_path):
    rot = _write(tmp_path, ATLANTIS.format(games=20) + "rotate_seats: true\n", "atl.yaml")
    rs, _, prep = runner.resolve(rot)
    assert prep.scenario["games"] == 40
    games, seats = rs.run_chunk(prep, 0, 40)
    first = games["first"].astype(str).to_numpy()
    assert (first[0::2] == "Sea Witch").all() and (first[1::2] == "Sea King").all()
    assert (seats["faction"].astype(str).to_numpy()[0::2] == first).all()  # seat 0 moves
    maps = [rs.trace(prep, g) for g in (6, 7)]          # deal 3, both rotations
    grid = [[ln for ln in lines if ln.startswith("  ") and set(ln.strip()) - set("~. ")]
            for lines in maps]
    start = [next(i for i, ln in enumerate(m) if ln.startswith("map")) for m in maps]
    assert maps[0][start[0]:start[0] + 10] == maps[1][start[1]:start[1] + 10] and grid[0]
    assert "(deal 3, seat rotation 1 of 2)" in maps[1][0]


@pytest.mark.slow
def test_rotated_runs_cluster_by_deal_and_report_it(deepfall, tmp_path):
    from deepsim.gate.check import check_prepared
    from deepsim.gate.expect import parse_expect

    plain, rot = deepfall
    exp = parse_expect({"expect": [{"metric": "win_share[seat]", "within": [0, 100]},
                                   {"metric": "win_share[company]", "within": [0, 100]}]},
                       source="x")
    rs, _, prep = runner.resolve(rot)
    res = check_prepared(rs, prep, exp, source="x", lines={}, looks=[180], alphas=[0.05],
                         alpha=0.05, sequential=False, spending="pocock", overrides=[])
    for row in res.rows:
        assert row.estimate.clusters == 60                 # deals, not games
        assert "deals as clusters" in row.estimate.method  # never Wilson across rotations
    # a run of each, and its report
    out_rot = runner.run(rot, out=tmp_path / "rot-run", games=120).out_dir
    out_fix = runner.run(plain, out=tmp_path / "fix-run", games=120).out_dir
    from deepsim.reporting import report_runs

    report_runs([out_rot])
    report_runs([out_fix])
    rep_rot = (out_rot / "report" / "report.md").read_text()
    rep_fix = (out_fix / "report" / "report.md").read_text()
    assert "Seats rotate (`rotate_seats`)" in rep_rot and "coincide" not in rep_rot
    assert "**Seat and company coincide**" in rep_fix
    assert "seat 1 = Wisp Wardancer" in rep_fix and "rotate_seats: true" in rep_fix
    # B2 counts the companies the seats allow (3), not 36
    b2 = next(ln for ln in rep_fix.splitlines() if ln.startswith("| B2:"))
    assert " of 3 at or above the line" in b2 and "of 36" not in b2
    from deepsim.output import read_run

    g, s = read_run(out_rot)
    assert {"deal", "rotation"} <= set(g.columns) and "rotation" in s.columns
    assert len(g) == 360


def test_compare_pairs_deals_of_rotated_seats(deepfall):
    from deepsim.gate.compare import run_compare

    plain, rot = deepfall
    res = run_compare(rot, metric="win_share[seat=3]", games=40,
                      sets_b=["callings.wardancer.worthy_end_multiplier=1.8"])
    assert res.games == 120 and res.diff.n == 40          # 40 deals, 3 rotations each
    assert len(res.factions) == 4                          # 3 companies and the spread
    with pytest.raises(InputError, match="cannot be paired"):
        run_compare(rot, plain, metric="rounds", games=10)
