"""The studio's door: token -> cookie, 403 without it, Host header checked, no path out
of the folder or the history."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from deepsim.errors import InputError
from deepsim.studio.catalog import inside
from deepsim.studio.guard import host_name
from deepsim.studio.history import read_entry
from deepsim.studio.server import StudioConfig, create_app

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-token-123"


@pytest.fixture
def folder(tmp_path):
    shutil.copy(ROOT / "scenarios" / "deepfall-4p.yaml", tmp_path / "deepfall-4p.yaml")
    (tmp_path / "secret.txt").write_text("not for the page")
    return tmp_path


@pytest.fixture
def client(folder, test_client):
    app = create_app(StudioConfig(folder, token=TOKEN).resolved())
    with test_client(app, base_url="http://127.0.0.1:8765") as c:
        yield c


def test_every_request_without_the_token_gets_403(client):
    for path in ("/", "/api/scenarios", "/api/history", "/static/studio.js",
                 "/api/runs", "/nowhere"):
        assert client.get(path).status_code == 403, path
    assert client.post("/api/runs", json={}).status_code == 403
    assert client.get("/?token=wrong").status_code == 403
    client.cookies.set("deepsim_studio", "wrong")
    assert client.get("/api/history").status_code == 403


def test_the_token_becomes_an_httponly_strict_cookie_and_leaves_the_address(client):
    r = client.get("/?token=" + TOKEN, follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == "/"
    cookie = r.headers["set-cookie"]
    assert f"deepsim_studio={TOKEN}" in cookie
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    r = client.get("/?token=" + TOKEN)          # the client keeps the cookie
    assert r.status_code == 200 and "deepsim studio" in r.text
    assert client.get("/api/history").json() == {"entries": []}


def test_the_host_header_is_checked(client):
    client.cookies.set("deepsim_studio", TOKEN)
    assert client.get("/api/history").status_code == 200
    for host in ("evil.example", "evil.example:8765", "127.0.0.1.evil.example"):
        r = client.get("/api/history", headers={"host": host})
        assert r.status_code == 403, host
        assert "Host" in r.text
    assert client.get("/api/history", headers={"host": "localhost:8765"}).status_code == 200


def test_host_name_strips_the_port():
    assert host_name("127.0.0.1:8765") == "127.0.0.1"
    assert host_name("[::1]:8765") == "::1"
    assert host_name("LOCALHOST") == "localhost"


def test_no_path_leaves_the_folder(folder, client):
    client.cookies.set("deepsim_studio", TOKEN)
    for name in ("../etc/passwd", "/etc/passwd", "..", "a/../../x.yaml", "secret.txt/.."):
        with pytest.raises(InputError):
            p = inside(folder, name)
            if p == folder.resolve():
                raise InputError("the folder itself is no file")
    (folder / "out").symlink_to("/etc")
    with pytest.raises(InputError):
        inside(folder, "out/passwd")
    for name in ("../../etc/passwd", "%2e%2e/%2e%2e/etc/passwd", "/etc/passwd",
                 "secret.txt"):
        r = client.get("/api/scenario", params={"name": name})
        assert r.status_code == 400, name
        assert "passwd" not in r.text or "not a file" in r.text or "no such" in r.text
        r = client.post("/api/runs", json={"scenario": name, "games": 10})
        assert r.status_code == 400, name
    for entry in ("..", "../../etc", "20261205-103754-00000g", "x"):
        with pytest.raises(InputError):
            read_entry(folder / "reports" / "studio", entry)
        r = client.get(f"/api/history/{entry}")
        assert r.status_code in (403, 404), entry
    assert client.get("/static/../secret.txt").status_code == 404


def test_a_bad_folder_and_a_port_in_use_are_input_errors(tmp_path):
    import socket

    from deepsim.studio.server import port_free, serve
    with pytest.raises(InputError, match="not a folder"):
        StudioConfig(tmp_path / "missing").resolved()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert not port_free("127.0.0.1", port)
        with pytest.raises(InputError, match="in use"):
            serve(StudioConfig(tmp_path, port=port), echo=lambda *a, **k: None)


def test_serve_prints_the_address_with_its_token_and_warns_off_loopback(tmp_path,
                                                                         monkeypatch):
    import uvicorn

    from deepsim.studio.server import serve
    seen, printed = {}, []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(kw))

    def echo(text, file=None):
        printed.append((text, file))

    serve(StudioConfig(tmp_path, port=0, token="abc"), echo=echo)
    assert seen["host"] == "127.0.0.1"
    out = "\n".join(t for t, _ in printed)
    assert "http://127.0.0.1:0/?token=abc" in out
    assert not any(f is not None for _, f in printed)         # no warning on loopback
    assert (tmp_path / "reports" / "studio").is_dir()
    printed.clear()
    serve(StudioConfig(tmp_path, host="0.0.0.0", port=0, token="abc"), echo=echo)
    warnings = [t for t, f in printed if f is not None]
    assert warnings and "0.0.0.0" in warnings[0] and "token" in warnings[0]


def test_a_websocket_handshake_without_the_cookie_is_refused(client):
    from starlette.websockets import WebSocketDisconnect
    with pytest.raises(WebSocketDisconnect) as err, client.websocket_connect("/ws"):
        pass
    assert err.value.code == 1008
