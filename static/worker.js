/* Pyodide worker: boots Python, runs the app, keeps its Bokeh document in sync with the page.
 *
 * build.py fills in CONFIG: {indexURL, packages, env, prelude, app: {source, filename}}.
 * Every package comes from ./pyodide/ (pyodide-lock.json lists them with their sha256, which
 * the browser checks), so nothing is fetched from another origin.
 */
"use strict";
const CONFIG = /*@CONFIG@*/ null;
const now = () => performance.timeOrigin + performance.now();
const post = (msg) => self.postMessage(msg);
const mark = (name) => post({ type: "mark", name, t: now() });
mark("worker_start");

importScripts(CONFIG.indexURL + "pyodide.js");

let pyodide = null;
let py = null; // the prelude's functions
// Messages are handled one at a time, in order: a patch must not overtake the link step.
let queue = Promise.resolve();

function sendPatch(patch, buffers) {
  post({ type: "patch", patch, buffers });
}

async function start() {
  post({ type: "status", msg: "Loading Python…" });
  const errors = [];
  pyodide = await loadPyodide({
    indexURL: CONFIG.indexURL,
    // Listing the packages here starts their downloads as soon as the lock file is in,
    // alongside the runtime's own; they are installed once the interpreter is up.
    packages: CONFIG.packages,
    env: CONFIG.env,
    stdout: (s) => console.log(s),
    stderr: (s) => console.warn(s),
  });
  mark("pyodide_ready");
  // loadPackage reports failures (a bad sha256, a missing file) without throwing.
  const missing = CONFIG.packages.filter((name) => !(name in pyodide.loadedPackages));
  if (missing.length) {
    throw new Error(`Could not load ${missing.join(", ")} (see the console)`);
  }
  post({ type: "status", msg: "Starting the app…" });
  pyodide.runPython(CONFIG.prelude);
  py = {
    run: pyodide.globals.get("_pg_run_app"),
    link: pyodide.globals.get("_pg_link"),
    patch: pyodide.globals.get("_pg_patch"),
    location: pyodide.globals.get("_pg_location"),
  };
  const result = await py.run(CONFIG.app.source, CONFIG.app.filename);
  const [docs_json, render_items, root_ids, timings] = result.toJs();
  result.destroy();
  mark("doc_ready");
  post({ type: "render", docs_json, render_items, root_ids, timings: JSON.parse(timings) });
}

async function handle(msg) {
  if (msg.type === "rendered") {
    py.link(sendPatch);
    post({ type: "linked", t: now() });
    // Report what this worker fetched, so the page can hand the list to the service worker.
    const urls = performance.getEntriesByType("resource").map((e) => e.name);
    post({ type: "resources", urls });
  } else if (msg.type === "patch") {
    try {
      py.patch(msg.patch);
    } finally {
      post({ type: "idle" });
    }
  } else if (msg.type === "location") {
    py.location(msg.location);
  }
}

self.onmessage = (event) => {
  queue = queue.then(() => handle(event.data)).catch(reportError);
};

function reportError(err) {
  console.error(err);
  post({ type: "error", msg: String((err && err.message) || err) });
}

queue = start().catch(reportError);
