"""The studio in a real browser: Debian's headless Chromium driven by Selenium through
Debian's chromedriver, against `deepsim studio` started as a user starts it.

Opens the page with the token, picks the default scenario, runs 2,000 games, changes one
number, runs the variant and sees the chart and the paired change; without the token the
page is 403. Screenshots go to $DEEPSIM_SCREENSHOTS (default: the test's tmp folder).
Skips, saying why, when Chromium, chromedriver or Selenium is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium (apt-get install chromium)"),
    pytest.mark.skipif(DRIVER is None,
                       reason="no chromedriver (apt-get install chromium-driver)"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def studio(tmp_path):
    folder = tmp_path / "designs"
    folder.mkdir()
    shutil.copy(ROOT / "scenarios" / "deepfall-4p.yaml", folder / "deepfall-4p.yaml")
    port = _free_port()
    exe = Path(sys.executable).with_name("deepsim")
    proc = subprocess.Popen([str(exe) if exe.exists() else "deepsim", "studio", str(folder),
                             "--port", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    url, seen = None, []
    t0 = time.time()
    while time.time() - t0 < 120 and url is None:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        m = re.search(r"(http://\S+\?token=\S+)", line)
        url = m.group(1) if m else None
    assert url, "".join(seen)
    yield url, folder, proc
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)         # Ctrl-C
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise


@pytest.fixture
def browser(tmp_path):
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={tmp_path / 'chromium-profile'}",
                 "--window-size=1400,1700"):
        opts.add_argument(flag)
    drv = webdriver.Chrome(options=opts, service=Service(DRIVER))
    drv.set_page_load_timeout(60)
    yield drv
    drv.quit()


def _wait_for(drv, css, timeout=300):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
    return WebDriverWait(drv, timeout).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, css)))


def test_change_a_number_and_see_the_paired_change(studio, browser, tmp_path, spf_max):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    url, folder, proc = studio
    shots = Path(os.environ.get("DEEPSIM_SCREENSHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)

    bare = url.split("?")[0]
    browser.get(bare)                       # without the token
    assert "Forbidden" in browser.page_source
    browser.save_screenshot(str(shots / "studio-403.png"))

    browser.get(url)
    assert "token=" not in browser.current_url        # the token left the address bar
    _wait_for(browser, "#scenario option")
    sel = Select(browser.find_element(By.ID, "scenario"))
    assert sel.first_selected_option.get_attribute("value") == "deepfall-4p.yaml"
    _wait_for(browser, "#params details")
    games = browser.find_element(By.ID, "games")
    games.clear()
    games.send_keys("2000")
    browser.find_element(By.ID, "run").click()
    _wait_for(browser, "#shares")
    _wait_for(browser, "#share-chart circle")
    assert "2,000 games" in browser.find_element(By.ID, "result").text
    browser.save_screenshot(str(shots / "studio-baseline.png"))

    search = browser.find_element(By.ID, "search")
    search.send_keys("steps_per_floor")
    box = _wait_for(browser, 'input[data-path="maw.steps_per_floor"]', 10)
    box.send_keys("999")                    # out of bounds: a message naming it
    browser.find_element(By.ID, "run-variant").click()
    err = browser.find_element(By.ID, "variant-error")
    for _ in range(100):
        if err.text:
            break
        time.sleep(0.1)
    assert "maw.steps_per_floor" in err.text and spf_max in err.text, err.text
    box.clear()
    box.send_keys("4")
    browser.find_element(By.ID, "run-variant").click()
    _wait_for(browser, "#paired-table")
    _wait_for(browser, "#change-chart circle")
    text = browser.find_element(By.ID, "result").text
    assert "Paired change against the baseline (2000 paired games)" in text
    assert "maw.steps_per_floor=4" in text
    browser.save_screenshot(str(shots / "studio-variant.png"))
    # the history survives on disk: two whole entries
    entries = [p for p in (folder / "reports" / "studio").iterdir()
               if not p.name.startswith(".")]
    assert len(entries) == 2 and all((p / "entry.json").is_file() for p in entries)

    proc.send_signal(signal.SIGINT)          # Ctrl-C stops it cleanly
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out
    assert "stopped" in out
