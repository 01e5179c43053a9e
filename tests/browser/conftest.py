"""Shared browser fixtures: Debian's Chromium through Playwright, a static server for the built
site, and a recorder of every request (any host but 127.0.0.1 fails the test).

Never run ``playwright install``: the browser is /usr/bin/chromium (``apt-get install chromium``).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from needs import missing, require

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    # Safety net: a name other than 127.0.0.1 cannot even be resolved.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
# The app the site is built from: the real one by default; PLAYGROUND_SITE_APP=... overrides it
# (e.g. a toy app while the real one is being written).
SITE_APP = Path(os.environ.get("PLAYGROUND_SITE_APP", ROOT / "playground" / "app.py"))
ALLOWED_HOSTS = {"127.0.0.1"}

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def browser():
    require("playwright", "pip install playwright; never `playwright install`")
    if not Path(CHROMIUM).exists():
        missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


def _site_is_current(site: Path, app: Path) -> bool:
    """A built site is reused when it was built from this app and nothing it is made of changed."""
    import json

    marker = site / "build.json"
    if not marker.exists():
        return False
    try:
        if Path(json.loads(marker.read_text())["app"]) != app.resolve():
            return False
    except (ValueError, KeyError):
        return False
    built = marker.stat().st_mtime
    inputs = [ROOT / "build.py", ROOT / "pyproject.toml", app, *(ROOT / "static").rglob("*")]
    for pkg in ("engine", "playground"):
        inputs += (ROOT / pkg).rglob("*.py")
    return all(p.stat().st_mtime <= built for p in inputs if p.is_file())


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The static site of SITE_APP: site/ when it is up to date, else a fresh build (once per
    session; a file lock keeps parallel pytest workers from building at the same time)."""
    if not SITE_APP.exists():
        missing(f"no app at {SITE_APP} to build the site from")
    import build

    default = ROOT / "site"
    lock_path = ROOT / ".cache" / "browser-tests.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _site_is_current(default, SITE_APP):
            return default
        out = tmp_path_factory.getbasetemp().parent / "static-site"
        if not _site_is_current(out, SITE_APP):
            if out.exists() and not (out / "build.json").exists():
                shutil.rmtree(out)
            build.build(SITE_APP, out)
        return out


class StaticServer:
    def __init__(self, site: Path):
        import build

        self.httpd = build.make_server(site, port=0)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def serve_folder():
    """Serves a folder on 127.0.0.1 (another origin than the site's: a free port of its own)."""
    servers = []

    def serve(folder: Path) -> StaticServer:
        servers.append(StaticServer(folder))
        return servers[-1]

    yield serve
    for server in servers:
        server.close()


@pytest.fixture(scope="session")
def site_server(built_site):
    """The built site served on 127.0.0.1 (a free port) from a background thread."""
    server = StaticServer(built_site)
    yield server
    server.close()


class RequestRecorder:
    """Every request a browser context makes (page, workers), and every console error."""

    def __init__(self):
        self.urls: list[str] = []
        self.errors: list[str] = []

    def attach(self, context):
        context.on("request", lambda req: self.urls.append(req.url))
        context.on("console", self._console)
        context.on("weberror", lambda err: self.errors.append(f"uncaught: {err.error}"))
        return context

    def _console(self, msg):
        if msg.type == "error":
            self.errors.append(msg.text)

    def foreign(self) -> list[str]:
        out = []
        for url in self.urls:
            parts = urlsplit(url)
            if parts.scheme in ("data", "blob", "about"):
                continue
            if parts.hostname not in ALLOWED_HOSTS:
                out.append(url)
        return out


@pytest.fixture()
def recorder():
    return RequestRecorder()


@pytest.fixture()
def context(browser, recorder):
    """A fresh browser context (empty cache, no service worker) with the recorder attached."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    recorder.attach(ctx)
    yield ctx
    ctx.close()
