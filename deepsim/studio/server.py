"""The studio's web application (Starlette) and its server (uvicorn).

Routes: the page and its script (``/``, ``/static/...``), then a small JSON interface the
page polls: ``/api/scenarios``, ``/api/scenario?name=``, ``/api/runs`` (POST: queue a run
or a variant; GET: the shared queue), ``/api/runs/<id>/cancel``, ``/api/history``,
``/api/history/<id>``, ``/api/history/<id>/export?as=scenario|sets``,
``/api/history/<id>/trace?game=``, ``/api/history/<id>/report/`` (the full HTML
report). Every request passes :class:`deepsim.studio.guard.Guard`.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from deepsim.errors import InputError

STATIC = Path(__file__).with_name("static")

#: the page's largest game count (a run is one click: keep it answering in seconds)
MAX_GAMES = 1_000_000


@dataclass
class StudioConfig:
    """Where and how the studio serves: ``folder`` (its scenarios), ``history`` (default
    ``folder/reports/studio``), ``host``, ``port``, ``token`` (None: a fresh one)."""

    folder: Path
    history: Path | None = None
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    scenario: str | None = None

    def resolved(self) -> StudioConfig:
        """With the folder checked and the history and token filled in.

        Raises
        ------
        InputError
            The folder does not exist or is not a folder; the history cannot be created.
        """
        from deepsim.studio.guard import new_token
        folder = Path(self.folder).resolve()
        if not folder.is_dir():
            raise InputError("not a folder (the studio serves a folder of scenarios)",
                             file=str(self.folder))
        history = Path(self.history).resolve() if self.history else \
            folder / "reports" / "studio"
        try:
            history.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot create the history folder: {exc.strerror}",
                             file=str(history)) from None
        return StudioConfig(folder, history, self.host, self.port,
                            self.token or new_token(), self.scenario)


def _hosts(host: str) -> set[str]:
    out = {"127.0.0.1", "localhost", "::1"}
    if host not in ("0.0.0.0", "::", ""):
        out.add(host)
    else:
        out.add(socket.gethostname().lower())
    return out


def _error(exc: InputError, status: int = 400):
    from starlette.responses import JSONResponse
    return JSONResponse({"error": str(exc)}, status_code=status)


def _bounds_message(ruleset: str, sets: list[str], exc: InputError) -> str:
    """The runner's message, with the bounds and type of the parameter it names when the
    message lacks them (the page shows it beside the field)."""
    from deepsim.studio.catalog import parameters
    text = str(exc)
    rows = {r["path"]: r for r in parameters(ruleset)}
    for s in sets:
        path = s.split("=", 1)[0].strip()
        if path in text and path in rows:
            r = rows[path]
            extra = f"{path}: {r['type']}" + (f", {r['bounds']}" if r["bounds"] else "")
            if r["bounds"] and r["bounds"] not in text:
                text += f" ({extra})"
            break
    return text


def create_app(config: StudioConfig):
    """The Starlette application of a resolved :class:`StudioConfig` (its queue starts with
    it and stops at shutdown)."""
    from contextlib import asynccontextmanager

    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request as HttpRequest
    from starlette.responses import FileResponse, JSONResponse, PlainTextResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from deepsim.studio import history as H
    from deepsim.studio.catalog import Catalog, parameters
    from deepsim.studio.guard import Guard
    from deepsim.studio.jobs import Queue
    from deepsim.studio.runs import Request

    assert config.token and config.history
    catalog = Catalog(config.folder)
    state: dict = {}

    def jobs() -> Queue:
        if "queue" not in state:
            state["queue"] = Queue(config.folder, config.history)
        return state["queue"]

    @asynccontextmanager
    async def lifespan(app):
        jobs()
        yield
        state["queue"].stop()

    async def page(request: HttpRequest):
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})

    async def list_scenarios(request: HttpRequest):
        entries = await asyncio.to_thread(catalog.entries)
        default = config.scenario
        good = [e.name for e in entries if not e.error]
        if default not in good:
            default = good[0] if good else None
        return JSONResponse({"scenarios": [e.__dict__ for e in entries],
                             "default": default, "folder": str(config.folder)})

    async def scenario(request: HttpRequest):
        try:
            e = await asyncio.to_thread(catalog.entry, request.query_params.get("name", ""))
            if e.error:
                raise InputError(e.error)
            params = await asyncio.to_thread(parameters, e.ruleset)
        except InputError as exc:
            return _error(exc)
        return JSONResponse({"scenario": e.__dict__, "parameters": params})

    async def runs(request: HttpRequest):
        if request.method == "GET":
            return JSONResponse({"runs": jobs().listing()})
        try:
            body = await request.json()
        except ValueError:
            return _error(InputError("the request is not JSON"))
        try:
            name = str(body.get("scenario", ""))
            e = catalog.entry(name)
            if e.error:
                raise InputError(e.error)
            games = body.get("games")
            if isinstance(games, bool) or not isinstance(games, int) or not \
                    1 <= games <= MAX_GAMES:
                raise InputError(f"games: a whole number from 1 to {MAX_GAMES:,}, "
                                 f"got {games!r}")
            values = body.get("values") or {}
            if not isinstance(values, dict):
                raise InputError("values: a mapping {parameter: value}")
            sets = [f"{k}={v}".strip() for k, v in values.items() if str(v).strip() != ""]
            baseline = body.get("baseline") or None
            if baseline is not None:
                H.read_entry(config.history, str(baseline))
            if sets:
                # check the numbers now, so a bad one is answered in the page at once
                from deepsim import runner
                from deepsim.studio.catalog import inside
                try:
                    await asyncio.to_thread(runner.resolve, inside(config.folder, name),
                                            games=1, overrides=sets)
                except InputError as exc:
                    raise InputError(_bounds_message(e.ruleset, sets, exc)) from None
        except InputError as exc:
            return _error(exc)
        job = jobs().submit(Request(name, games, sets, baseline,
                                    str(body.get("label") or "")))
        return JSONResponse(job.public(), status_code=202)

    async def cancel(request: HttpRequest):
        try:
            job = jobs().cancel(request.path_params["job"])
        except InputError as exc:
            return _error(exc, 404)
        return JSONResponse(job.public())

    async def history(request: HttpRequest):
        return JSONResponse({"entries": await asyncio.to_thread(H.entries, config.history)})

    async def entry(request: HttpRequest):
        try:
            return JSONResponse(await asyncio.to_thread(H.read_entry, config.history,
                                                        request.path_params["entry"]))
        except InputError as exc:
            return _error(exc, 404)

    async def export(request: HttpRequest):
        try:
            e = H.read_entry(config.history, request.path_params["entry"])
            kind = request.query_params.get("as", "scenario")
            if kind == "sets":
                return PlainTextResponse(H.export_sets(e))
            if kind != "scenario":
                raise InputError("export as 'scenario' or 'sets'")
            text = await asyncio.to_thread(H.export_scenario, config.folder, e)
        except InputError as exc:
            return _error(exc, 404)
        return PlainTextResponse(text, headers={
            "content-disposition": f'attachment; filename="{e["id"]}.yaml"'})

    async def trace(request: HttpRequest):
        from deepsim import api
        try:
            e = H.read_entry(config.history, request.path_params["entry"])
            raw = request.query_params.get("game", "0")
            if not raw.isdigit() or int(raw) >= int(e["games"]):
                raise InputError(f"game: an index from 0 to {int(e['games']) - 1}, got {raw!r}")
            lines = await asyncio.to_thread(api.trace, str(config.history / e["id"]),
                                            int(raw))
        except InputError as exc:
            return _error(exc, 404)
        return PlainTextResponse("\n".join(lines))

    async def report(request: HttpRequest):
        """The entry's full balance report (``deepsim report``), written on first asking
        into the entry's ``report/`` folder, and its plots."""
        from starlette.responses import FileResponse

        from deepsim.reporting import report_runs
        from deepsim.studio.catalog import inside
        try:
            e = H.read_entry(config.history, request.path_params["entry"])
            run_dir = config.history / e["id"]
            name = request.path_params.get("file") or "report.html"
            target = inside(run_dir / "report", name) if (run_dir / "report").is_dir() \
                else None
            if not (run_dir / "report" / "report.html").is_file():
                await asyncio.to_thread(report_runs, [run_dir], formats=("html",))
                target = inside(run_dir / "report", name)
            if target is None or not target.is_file():
                raise InputError(f"no such file in the report: {name}")
        except InputError as exc:
            return _error(exc, 404)
        return FileResponse(target)

    routes = [
        Route("/", page),
        Route("/api/scenarios", list_scenarios),
        Route("/api/scenario", scenario),
        Route("/api/runs", runs, methods=["GET", "POST"]),
        Route("/api/runs/{job}/cancel", cancel, methods=["POST"]),
        Route("/api/history", history),
        Route("/api/history/{entry}", entry),
        Route("/api/history/{entry}/export", export),
        Route("/api/history/{entry}/trace", trace),
        Route("/api/history/{entry}/report/", report),
        Route("/api/history/{entry}/report/{file}", report),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan,
                     middleware=[Middleware(Guard, token=config.token,
                                            hosts=_hosts(config.host))])


def address(config: StudioConfig) -> str:
    """The page's address with its token (what the command prints)."""
    host = config.host if config.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{config.port}/?token={config.token}"


def port_free(host: str, port: int) -> bool:
    """Can the studio bind ``host:port``?"""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def serve(config: StudioConfig, *, echo=print) -> None:
    """Serve the studio until Ctrl-C (uvicorn; one process, the runs in a worker thread).

    Raises
    ------
    InputError
        A bad folder, or the port is in use.
    """
    import uvicorn
    config = config.resolved()
    if not port_free(config.host, config.port):
        raise InputError(f"port {config.port} on {config.host} is in use: pick another with "
                         "--port")
    if config.host not in ("127.0.0.1", "localhost", "::1"):
        echo(f"warning: the studio listens on {config.host}, not only this machine; the "
             "token is the only lock", file=sys.stderr)
    app = create_app(config)
    echo(f"deepsim studio: {config.folder}\nhistory: {config.history}\n"
         f"open {address(config)}\n(Ctrl-C stops it)")
    uvicorn.run(app, host=config.host, port=config.port, log_level="warning",
                ws="none", lifespan="on")
