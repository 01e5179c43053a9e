"""Python side of the Pyodide worker (static/worker.js); build.py's smoke test runs it too.

It patches the few places where Panel 1.9 and Pyodide 0.27 disagree, runs the app into a
Bokeh document, and exposes the functions worker.js calls to keep that document in sync
with the page.
"""

import json
import os
import sys
import time
import types

import pyodide.ffi

# Panel 1.9 targets Pyodide 0.29, which has ``pyodide.ffi.jsnull``; 0.27 converts JS null to
# None already, so a sentinel nothing equals is the faithful stand-in.
if not hasattr(pyodide.ffi, "jsnull"):
    pyodide.ffi.jsnull = object()

# panel.io.pyodide imports pandas (5.7 MB, ~1 s to import) only to patch ``read_csv`` when
# pyodide_http is missing. The app fetches nothing over HTTP, so a no-op stand-in saves both.
try:
    import pyodide_http  # noqa: F401
except ImportError:
    sys.modules["pyodide_http"] = types.SimpleNamespace(patch_all=lambda: None)


def _lazy(name):
    """Import ``name`` lazily: the module runs on first attribute access, not at import."""
    import importlib.util

    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        return
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


# Modules that Panel imports on paths where they are seldom used (build.py's LAZY_IMPORTS,
# passed in PLAYGROUND_LAZY_IMPORTS): e.g. ``markdown`` is imported by every Markdown pane
# but only used with renderer="markdown" (the default is markdown-it).
for _name in filter(None, os.environ.get("PLAYGROUND_LAZY_IMPORTS", "").split(",")):
    _lazy(_name)


def _bokeh_models_without_signatures():
    """Bokeh builds a help signature (every property's default and type) for each of its ~500
    model classes as it defines them: ~8% of the CPU time Panel takes to import here, for
    ``help()`` only. Keep the rest of ``Model.__init_subclass__`` (HasProps' part)."""
    from bokeh.model import model

    original = model.Model.__dict__.get("__init_subclass__")
    names = getattr(getattr(original, "__func__", None), "__code__", None)
    if names is None or not {"parameters", "process_example"} <= set(names.co_names):
        return  # another Bokeh: leave it alone

    def __init_subclass__(cls):
        super(model.Model, cls).__init_subclass__()

    model.Model.__init_subclass__ = classmethod(__init_subclass__)


_patched = False


def _patch_bokeh():
    """Once ``bokeh.model.model`` is in, before any of Bokeh's models are defined."""
    global _patched
    if not _patched and "bokeh.models" not in sys.modules:
        _patched = True
        _bokeh_models_without_signatures()


_timings = {}


# ----- the quick start: the sketch comes alive before Panel is loaded (playground.quick) -----

def _pg_quick_start(link_text):
    t0 = time.perf_counter()
    import numpy  # noqa: F401

    t1 = time.perf_counter()
    import engine  # noqa: F401

    t2 = time.perf_counter()
    from playground import quick

    view = quick.start(link_text).view()
    t3 = time.perf_counter()
    _timings.update(quick_start=t3 - t0, import_numpy=t1 - t0, import_engine=t2 - t1, quick_model=t3 - t2)
    return json.dumps(view)


def _pg_quick(action, code):
    """A command from the sketch; "" once the app has taken over."""
    from playground import quick

    q = quick.current()
    return json.dumps(q.command(action, code)) if q else ""


def _pg_quick_finish(code):
    """The code in the sketch's editor as the app takes over: the sketch's last view, or ""."""
    from playground import quick

    q = quick.current()
    view = q.finish(code) if q else None
    return json.dumps(view) if view else ""


def _pg_warm(names, slice_s=0.03):
    """Import the app's modules (``names``: the order a build-time run loaded them) while the
    sketch stays live. worker.js calls this with ``callPromising``: then, every ``slice_s`` of
    importing, even in the middle of Panel's own ``__init__``, Python's stack is suspended
    (WebAssembly stack switching, ``run_sync``) and the worker answers the sketch. Where stack
    switching is missing (Node, older browsers) the imports simply run in one go."""
    import asyncio
    import importlib
    import importlib._bootstrap as bootstrap

    from pyodide.ffi import can_run_sync, run_sync

    t0 = time.perf_counter()
    due = [t0 + slice_s]
    load = bootstrap._load_unlocked

    def load_and_yield(spec):
        module = load(spec)
        if spec.name == "bokeh.model.model":
            _patch_bokeh()
        # The sketch's own commands run while this stack waits: never suspend those.
        if time.perf_counter() > due[0] and can_run_sync():
            run_sync(asyncio.sleep(0))
            due[0] = time.perf_counter() + slice_s
        return module

    bootstrap._load_unlocked = load_and_yield
    try:
        for name in names:
            if name not in sys.modules:
                try:
                    importlib.import_module(name)
                except Exception:  # noqa: BLE001 (the app's own import reports real problems)
                    pass
    finally:
        bootstrap._load_unlocked = load
    _timings["warm_imports"] = time.perf_counter() - t0


async def _pg_run_app(source, filename):
    """Run the app's source like ``panel serve`` would; return the document as JSON strings."""
    t0 = time.perf_counter()
    if "bokeh.model.model" not in sys.modules:
        import bokeh.model.model  # noqa: F401
    _patch_bokeh()
    from panel.io.pyodide import init_doc, write_doc

    t1 = time.perf_counter()
    init_doc()
    module = types.ModuleType("bokeh_app_pyodide")
    module.__file__ = filename
    sys.modules[module.__name__] = module
    exec(compile(source, filename, "exec"), module.__dict__)
    t2 = time.perf_counter()
    docs_json, render_items, root_ids = await write_doc()
    t3 = time.perf_counter()
    _timings.update(import_panel=t1 - t0, run_app=t2 - t1, write_doc=t3 - t2)
    return docs_json, render_items, root_ids, json.dumps(_timings)


_outbox = []  # the document's changes not yet sent to the page


def _pg_link(send_patch):
    """Start sending the document's changes to the page (after the page has rendered it).

    Like Panel's ``_link_docs_worker``, but the changes one command makes (a re-run touches
    about 25 properties: sources, ranges, panes, menus) go as one patch instead of one each:
    serialising and posting a patch costs milliseconds in Pyodide."""
    import asyncio
    import functools

    import js
    from bokeh.events import DocumentReady
    from panel.io.pyodide import _dict_converter, _process_document_events
    from panel.io.state import state

    doc = state.curdoc

    def flush():
        events = _outbox[:]
        _outbox.clear()
        if events:
            json_patch, buffer_map = _process_document_events(doc, events)
            send_patch(pyodide.ffi.to_js(json_patch, dict_converter=_dict_converter),
                       js.Map.new(js.Object.entries(pyodide.ffi.to_js(buffer_map))))

    def collect(event):
        if getattr(event, "setter", None) == "js":
            return  # the page's own change, coming back
        if not _outbox:
            asyncio.get_event_loop().call_soon(flush)  # changes made outside _pg_patch (callbacks)
        _outbox.append(event)

    _pg_link.flush = flush
    doc.on_change(collect)
    doc.unhold()
    doc.on_event("document_ready", functools.partial(state._schedule_on_load, doc))
    doc.callbacks.trigger_event(DocumentReady())


def _pg_patch(patch):
    """Apply a JSON patch coming from the page (a widget changed, a button was clicked), then
    send what that changed, in one patch."""
    from panel.io.pyodide import _convert_json_patch
    from panel.io.state import state

    try:
        state.curdoc.apply_json_patch(_convert_json_patch(patch), setter="js")
    finally:
        _pg_link.flush()


def _pg_location(location_json):
    """Tell pn.state.location where the page is (query string, hash) after the first render."""
    from panel.io.state import state
    from panel.util import edit_readonly

    if not state.location:
        return
    data = json.loads(location_json)
    with edit_readonly(state.location):
        state.location.param.update({k: v for k, v in data.items() if k in state.location.param})
