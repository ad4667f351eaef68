"""One "Readings under which the claims hold" section over several claims tunes.

A claims tune (:mod:`deepsim.tune.reconstruct`) searches one or more spaces; a designer
asks across all of them: the best point for each claim alone, the most claims at one point,
the claims no searched point holds together, the fewest changes from the literal rulebook
for the most claims, and the continuous values behind the rounded numbers.
:func:`summary_md` answers from the ``trials.parquet``, ``confirm.parquet``,
``respond_claims.parquet`` and ``tune.json`` of each folder, then appends each folder's own
``findings.md`` as a subsection. Conflicts are evidence from the points searched (no
searched point holds both), not a proof that no point does.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pandas as pd

from deepsim.errors import InputError

__all__ = ["load_tune", "space_label", "summary_md"]


def load_tune(folder: str | Path) -> dict:
    """A finished claims tune: ``{"path", "info", "trials", "confirm", "respond",
    "findings"}`` (``confirm``/``respond``: None when absent).

    Raises
    ------
    InputError
        The folder lacks ``tune.json``, ``trials.parquet`` or ``findings.md``, or the tune
        did not finish.
    """
    d = Path(folder)
    need = [d / "tune.json", d / "trials.parquet", d / "findings.md"]
    for p in need:
        if not p.is_file():
            raise InputError(f"not a finished claims tune (no {p.name})", file=str(d))
    info = json.loads((d / "tune.json").read_text(encoding="utf-8"))
    if info.get("status") != "complete" or info.get("kind") != "tune-claims":
        raise InputError("not a finished claims tune (tune.json status "
                         f"{info.get('status')!r})", file=str(d / "tune.json"))

    def opt(name):
        p = d / name
        return pd.read_parquet(p) if p.is_file() else None

    return {"path": d, "info": info, "trials": pd.read_parquet(d / "trials.parquet"),
            "confirm": opt("confirm.parquet"), "respond": opt("respond_claims.parquet"),
            "findings": (d / "findings.md").read_text(encoding="utf-8")}


def space_label(t: dict) -> str:
    """A tune's searched space in words, from its ``info``: the spaces, the ``--param``
    ranges and how many ``--set`` readings it ran at."""
    sp = t["info"].get("spaces") or []
    pr = t["info"].get("params") or []
    st = t["info"].get("sets") or []
    return (",".join(sp) + (" + " if sp and pr else "") + " ".join(f"--param {p}" for p in pr)
            + (f" at {len(st)} --set" if st else ""))


def _held(row: pd.Series, claims: list[str]) -> list[str]:
    return [c for c in claims if str(row.get(f"v_{c}", "")).startswith("holds")]


def _changes(row: pd.Series, base: pd.Series | None, dims: dict,
             sets: list[str] | None = None) -> list[str]:
    """Changes from the literal rulebook: the tune's ``--set`` overrides, then readings,
    placeholder tables and --param values off their defaults (a rounding value still
    rounds to the printed number: not one)."""
    if base is None:
        return []
    out, ph = [f"--set {x}" for x in sets or []], []
    for name, d in dims.items():
        if d.get("space") == "rounding":
            continue
        if name in row and row[name] != base[name]:
            (ph if d.get("space") == "placeholders" else out).append(
                name if d.get("space") == "placeholders" else f"{name}: {row[name]}")
    if ph:
        out.append(f"{len(ph)} placeholder table(s) changed ({', '.join(ph)})")
    return out


def _separating(pa: pd.DataFrame, pb: pd.DataFrame, tunes: list[dict], a: str,
                b: str) -> str:
    """The readings (dims) whose values at the points holding ``a`` (``pa``) and at those
    holding ``b`` (``pb``) never meet, named with their values; a rounding number whose
    ranges do not overlap is named with both ranges. Only dims searched by every run
    among the points."""
    runs = set(pa["_run"]) | set(pb["_run"])
    common = None
    for k in runs:
        names = set((tunes[int(k)]["info"].get("dims") or {}).keys())
        common = names if common is None else common & names
    out = []
    for n in sorted(common or []):
        space = (tunes[int(next(iter(runs)))]["info"]["dims"][n] or {}).get("space")
        va, vb = pa[n].dropna().astype(str), pb[n].dropna().astype(str)
        if va.empty or vb.empty:
            continue
        if space == "rounding":
            xa = va.str.split(" ").str[0].astype(float)
            xb = vb.str.split(" ").str[0].astype(float)
            if xa.max() < xb.min() or xb.max() < xa.min():
                out.append(f"{n}: {a} at {xa.min():.3f}-{xa.max():.3f}, {b} at "
                           f"{xb.min():.3f}-{xb.max():.3f}")
        elif space != "placeholders" and not set(va) & set(vb):
            out.append(f"{n}: {a} at {' / '.join(sorted(set(va)))}; {b} at "
                       f"{' / '.join(sorted(set(vb)))}")
    return "; ".join(out)


def _point(row: pd.Series) -> str:
    """A trial's name in confirm.parquet and respond_claims.parquet."""
    return "baseline" if bool(row["baseline"]) else f"trial {int(row['trial'])}"


def _minutes(s) -> str:
    return "?" if s is None or (isinstance(s, float) and math.isnan(s)) else f"{s / 60:.1f}"


def load_check(folder: str | Path) -> pd.DataFrame:
    """The ``respond_claims.parquet`` of a ``python -m deepsim.studies.respond_check`` run.

    Raises
    ------
    InputError
        The folder has no ``respond_claims.parquet``.
    """
    p = Path(folder) / "respond_claims.parquet"
    if not p.is_file():
        raise InputError("not a respond_check run (no respond_claims.parquet)",
                         file=str(folder), key="--check")
    return pd.read_parquet(p)


def summary_md(folders: list[str | Path], *, title: str = "Readings under which the "
               "claims hold", checks: dict | None = None) -> str:
    """The combined section (markdown) over the claims tunes in ``folders`` (see the module
    docstring); each tune's ``findings.md`` follows as a subsection. ``checks``: ``{tune
    folder: respond_check folder}``, a later check of points the tune did not confirm
    itself (its shipped field on the confirmation games is the point's confirmation).

    Raises
    ------
    InputError
        A folder that is not a finished claims tune, or tunes of different scenarios or
        claims; a check of a folder not among ``folders``.
    """
    tunes = [load_tune(f) for f in folders]
    extra: dict[int, pd.DataFrame] = {}
    for tf, cf in (checks or {}).items():
        at = [k for k, t in enumerate(tunes) if Path(t["path"]).resolve() ==
              Path(tf).resolve()]
        if not at:
            raise InputError(f"a check of {tf}, which is not one of the tunes given",
                             key="--check")
        extra[at[0]] = load_check(cf)
    if not tunes:
        raise InputError("no claims tune given", key="--reconstruct")
    claims = list(tunes[0]["info"].get("claims_scored") or [])
    scen = tunes[0]["info"].get("scenario_name")
    for t in tunes[1:]:
        if t["info"].get("scenario_name") != scen or \
                list(t["info"].get("claims_scored") or []) != claims:
            raise InputError(f"a tune of {t['info'].get('scenario_name')} scoring "
                             f"{t['info'].get('claims_scored')}; the others are of {scen} "
                             f"scoring {claims}", file=str(t["path"]))
    rows = []
    for k, t in enumerate(tunes):
        tr = t["trials"]
        ok = tr[tr["state"] == "COMPLETE"].copy()
        ok["_run"] = k
        ok["_held"] = ok.apply(lambda r: _held(r, claims), axis=1)
        base = ok[ok["baseline"]].iloc[0] if ok["baseline"].any() else None
        dims = t["info"].get("dims") or {}
        st = list(t["info"].get("sets") or [])
        ok["_nchg"] = ok.apply(lambda r, b=base, d=dims, st=st: len(_changes(r, b, d, st)),
                               axis=1)
        rnd = [n for n, x in dims.items() if x.get("space") == "rounding" and n in ok]
        ok["_nround"] = (sum((ok[n] != base[n]).astype(int) for n in rnd)
                         if base is not None and rnd else 0)
        rows.append(ok)
    allp = pd.concat(rows, ignore_index=True)
    lines = [f"## {title}", "",
             (f"`deepsim tune {scen} --objective claims` over the spaces the ruleset declares "
             "(`search.yaml`: each gap's documented readings, each printed number within the "
             "interval that rounds to it, the placeholder bags and floor weights). Every "
             "trial plays the same games of its seed (common random numbers); distances are "
             "in multiples of each claim's tolerance (0 = holds), each claim judged under "
             "the trial's own rules. Conflicts are evidence from the points searched, not "
             "a proof. Tuned bags and floor weights remain placeholder data."), "",
             ("| space | trials x games | wall / CPU min | hold at defaults | best point: "
             "hold (search) | confirmed (fresh games) | with best responses |"),
             "|---|---|---|---|---|---|---|"]
    for k, t in enumerate(tunes):
        info, ok = t["info"], allp[allp["_run"] == k]
        base = ok[ok["baseline"]]
        b = len(base.iloc[0]["_held"]) if len(base) else math.nan
        best = ok.sort_values(["holds", "value", "changes", "trial"],
                              ascending=[False, True, True, True]).iloc[0]
        conf = "-"
        if t["confirm"] is not None and len(t["confirm"]):
            c = t["confirm"]
            hit = c[c["point"] == _point(best)]
            pts = c[c["point"] != "baseline"]
            if len(hit):
                conf = (f"{int(hit['holds'].iloc[0])} of {len(claims)} "
                        f"({int(c['games'].iloc[0]):,} games)")
            elif len(pts):  # the best point was not among the confirmed ones
                top = pts.sort_values("holds", ascending=False).iloc[0]
                conf = (f"not this point; at most {int(top['holds'])} of {len(claims)} "
                        f"({top['point']}, {int(c['games'].iloc[0]):,} games)")
        ck = extra.get(k)
        if ck is not None and conf.startswith(("-", "not this point")) and \
                (ck["point"] == _point(best)).any():
            row = ck[ck["point"] == _point(best)].iloc[0]
            conf = (f"{int(row['holds_shipped'])} of {len(claims)} "
                    f"({int(row['games']):,} games, a later check)")
        resp = "-"
        r = t["respond"]
        if ck is not None and (ck["point"] == _point(best)).any():
            r = ck
        if r is not None and len(r):
            hit = r[r["point"] == _point(best)]
            if not len(hit) and len(r[r["point"] != "baseline"]):
                hit = r[r["point"] != "baseline"].sort_values("holds_br",
                                                              ascending=False).head(1)
                resp = f"not this point; {hit['point'].iloc[0]}: "
            if len(hit):
                resp = (resp.rstrip("-") + f"{int(hit['holds_br'].iloc[0])} (shipped "
                        f"{int(hit['holds_shipped'].iloc[0])}); changed: "
                        f"{hit['changed'].iloc[0]}")
        lines.append(f"| {space_label(t)} | {info.get('trials')} x {int(info.get('games', 0)):,} | "
                     f"{_minutes(info.get('wall_time_s'))} / "
                     f"{_minutes(info.get('cpu_time_s'))} | {b} | "
                     f"{int(best['holds'])} (trial {int(best['trial'])}: "
                     f"{', '.join(best['_held']) or 'none'}) | {conf} | {resp} |")
    lines += ["", "**Each claim alone** (its best point over every space searched):", "",
              "| claim | space | trial | distance | verdict | changes from the defaults |",
              "|---|---|---|---|---|---|"]
    for c in claims:
        rk = allp.assign(_no=~allp[f"v_{c}"].astype(str).str.startswith("holds"))
        d = rk.sort_values(["_no", f"d_{c}", "_nchg", "_run", "trial"]).iloc[0]
        t = tunes[int(d["_run"])]
        ok = allp[allp["_run"] == d["_run"]]
        base = ok[ok["baseline"]].iloc[0] if ok["baseline"].any() else None
        ch = _changes(d, base, t["info"].get("dims") or {}, t["info"].get("sets"))
        dist = d[f"d_{c}"]
        lines.append(f"| {c} | {space_label(t)} | {int(d['trial'])} | "
                     f"{'-' if pd.isna(dist) else f'{dist:.3g}'} | {d[f'v_{c}']} | "
                     f"{'; '.join(ch) or 'none'} |")
    most = int(allp["holds"].max())
    top = allp[allp["holds"] == most].sort_values(["_nchg", "_nround", "value", "_run",
                                                   "trial"])
    small = top.iloc[0]
    t = tunes[int(small["_run"])]
    ok = allp[allp["_run"] == small["_run"]]
    base = ok[ok["baseline"]].iloc[0] if ok["baseline"].any() else None
    sets = sorted({", ".join(h) for h in top["_held"]})
    sdims = t["info"].get("dims") or {}
    cont_at = [f"{n} = {small[n]}" for n, d in sdims.items()
               if d.get("space") == "rounding" and n in small
               and str(small[n]) != str(base[n] if base is not None else "")]
    lines += ["", (f"**Jointly**: at most {most} of {len(claims)} claims hold at one point "
              f"({len(top)} point(s) across the spaces; claim sets: {'; '.join(sets)})."),
              (f"**Smallest change from the literal rulebook** for {most} claims (a rounded number's continuous value is not a change): "
              f"{int(small['_nchg'])} change(s) ({space_label(t)}, trial {int(small['trial'])}): "
              f"{'; '.join(_changes(small, base, sdims, t['info'].get('sets'))) or 'none'}"
              + (f"; with the printed numbers read as {'; '.join(cont_at)}" if cont_at else "")
              + ".")]
    conflicts, never = [], []
    for c in claims:
        if not allp["_held"].apply(lambda h, c=c: c in h).any():
            never.append(c)
    for a, b in itertools.combinations(claims, 2):
        ha = allp["_held"].apply(lambda h, a=a: a in h)
        hb = allp["_held"].apply(lambda h, b=b: b in h)
        if ha.any() and hb.any() and not (ha & hb).any():
            conflicts.append((a, b, ha, hb))
    lines.append(f"**Claims that conflict** (each holds at some searched point, never both "
                 f"at one): {', '.join(f'{a}-{b}' for a, b, _, _ in conflicts) or 'none found'}"
                 ". " + (f"Never held at any searched point: {', '.join(never)}."
                         if never else ""))
    if conflicts:
        lines += ["", ("Why each pair conflicts, from the points searched: how many points "
                  "hold each claim, the other claim's best distance there (0 would be "
                  "holding), and the readings that separate them (a reading or number "
                  "whose values at the points holding one claim never occur at the points "
                  "holding the other; each claim judged under the point's own rules):"), "",
                  ("| pair | points holding each | other's best distance there | what "
                  "separates them |"), "|---|---|---|---|"]
        for a, b, ha, hb in conflicts:
            pa, pb = allp[ha], allp[hb]
            da, db = pa[f"d_{b}"].astype(float).min(), pb[f"d_{a}"].astype(float).min()
            lines.append(f"| {a}-{b} | {a} {len(pa)}, {b} {len(pb)} | {b} at {a}'s: "
                         f"{da:.3g}; {a} at {b}'s: {db:.3g} | "
                         f"{_separating(pa, pb, tunes, a, b) or 'no single reading'} |")
    if never:
        lines += ["", ("Claims no searched point holds, under every reading searched (the "
                  "closest point, its verdict and distance: a verdict 'not measured' or "
                  "'untestable' is the text's or the tune's limit, not the games'):"), "",
                  "| claim | points | closest distance | verdict there | verdicts seen |",
                  "|---|---|---|---|---|"]
        for c in never:
            col = allp[f"d_{c}"].astype(float)
            seen = allp[f"v_{c}"].astype(str).str.split(" \\(").str[0].value_counts()
            if col.notna().any():
                at = allp.loc[col.idxmin()]
                near, verdict = f"{col.min():.3g}", str(at[f"v_{c}"])
            else:
                near, verdict = "-", str(allp[f"v_{c}"].iloc[0])
            lines.append(f"| {c} | {len(allp)} | {near} | {verdict} | "
                         + ", ".join(f"{k} {v}" for k, v in seen.items()) + " |")
    # continuous values behind the printed numbers
    cont = []
    for k, t in enumerate(tunes):
        dims = t["info"].get("dims") or {}
        rnd = [n for n, d in dims.items() if d.get("space") == "rounding"]
        if not rnd:
            continue
        ok = allp[allp["_run"] == k]
        mx = int(ok["holds"].max())
        best = ok.sort_values(["holds", "value", "changes", "trial"],
                              ascending=[False, True, True, True]).iloc[0]
        at = ok[ok["holds"] == mx]
        for n in rnd:
            vals = at[n].astype(str).str.split(" ").str[0].astype(float)
            printed = str(dims[n].get("default", "")).rsplit("(printed ", 1)[-1].rstrip(")")
            cont.append(f"| {space_label(t)} | {n} | {printed} | "
                        f"{str(best[n]).split(' ')[0]} | {vals.min():.4f} - {vals.max():.4f} "
                        f"({len(at)} points) |")
        ints = t["info"].get("integers_kept") or []
        if ints and not any("integers" in x for x in cont):
            cont.append("integers " + "; ".join(f"{i.get('section', i['path'])}"
                                                for i in ints))
    if cont:
        ints = [x for x in cont if x.startswith("integers ")]
        cont = [x for x in cont if not x.startswith("integers ")]
        lines += ["", ("**Continuous values behind the printed numbers** (at the best point "
                  "of each run with the rounding space, and their range over the points "
                  "holding that run's most claims: a wide range means the claims do not pin "
                  "the number):"), "",
                  ("| space | number | printed | at the best point | range where the most "
                  "claims hold |"), "|---|---|---|---|---|", *cont]
        if ints:
            lines.append("")
            lines.append("Printed integers the kernel counts with are kept as printed (the "
                         "interval that rounds to them holds no other playable integer): "
                         + ints[0].removeprefix("integers ") + ".")
    lines.append("")
    for t in tunes:
        body = t["findings"].split("\n", 1)[1] if t["findings"].startswith("## ") \
            else t["findings"]
        body = body.replace("\n### ", "\n#### ")
        lines += [f"### `--space {space_label(t)}`", body.strip(), ""]
    return "\n".join(lines)
