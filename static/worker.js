/* Pyodide worker: boots Python, answers the page's live sketch (playground/quick.py) as soon as
 * the engine is in, imports Panel meanwhile, then runs the app on the sketch's session and keeps
 * its Bokeh document in sync with the page.
 *
 * build.py fills in CONFIG: {indexURL, packages, wheels, sitePackages, env, prelude, warm,
 * app: {source, filename}}. Every file comes from ./pyodide/ and pyodide-lock.json lists each
 * with its sha256, which the browser checks, so nothing is fetched from another origin.
 *
 *  - CONFIG.packages (NumPy: compiled code) go through Pyodide's loadPackage.
 *  - CONFIG.wheels (pure Python, bytecode only) are fetched the moment the worker starts and
 *    unzipped on another thread (unzip.js) while the runtime boots; this thread only writes
 *    the files. Pyodide would unzip them with Python's zipfile inside WebAssembly, after
 *    booting, on this thread: ~0.7 s more on the way to the first interactive view.
 */
"use strict";
const CONFIG = /*@CONFIG@*/ null;
const now = () => performance.timeOrigin + performance.now();
const post = (msg) => self.postMessage(msg);
const mark = (name) => post({ type: "mark", name, t: now() });
mark("worker_start");
const wheelFiles = unzipWheels(CONFIG.wheels); // first: it only waits for the network
wheelFiles.then(() => mark("wheels_unzipped"), () => {});

importScripts(CONFIG.indexURL + "pyodide.js");

let pyodide = null;
let py = null; // the prelude's functions
// Messages are handled one at a time, in order: a patch must not overtake the link step.
let queue = Promise.resolve();
// The page's first words (its URL hash: a share link), then, once Panel is loaded, the code in
// the sketch's editor: the app carries on from there.
const fromPage = { hello: deferred(), handoff: deferred() };
let quickLive = false; // the sketch's commands are answered (playground.quick) until the handoff

function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  promise.resolve = resolve;
  return promise;
}

function sendPatch(patch, buffers) {
  post({ type: "patch", patch, buffers });
}

// ---------------------------------------------------------------- pure-Python wheels
// Fetched and unzipped on another thread (unzip.js) from the start, while the runtime boots.
function unzipWheels(wheels) {
  const indexURL = new URL(CONFIG.indexURL, self.location.href).href;
  if (typeof Worker === "undefined") {
    importScripts("unzip.js");
    return Promise.all(wheels.map((w) => unzipWheel(indexURL, w))).then((lists) => lists.flat());
  }
  return new Promise((resolve, reject) => {
    const unzipper = new Worker("unzip.js", { name: "unzip" });
    const files = [];
    let left = wheels.length;
    unzipper.onmessage = (event) => {
      const msg = event.data;
      if (msg.type === "error") {
        unzipper.terminate();
        reject(new Error(`could not load ${msg.file_name}: ${msg.msg}`));
        return;
      }
      files.push(...msg.files);
      if (--left === 0) {
        unzipper.terminate();
        resolve(files);
      }
    };
    unzipper.onerror = (event) => reject(new Error("unzip worker: " + (event.message || "failed")));
    unzipper.postMessage({ indexURL, wheels });
  });
}
function installWheels(files) {
  const FS = pyodide.FS;
  const made = new Set();
  for (const [name, data] of files) {
    const path = CONFIG.sitePackages + "/" + name;
    const dir = path.slice(0, path.lastIndexOf("/"));
    if (!made.has(dir)) {
      FS.mkdirTree(dir);
      made.add(dir);
    }
    FS.writeFile(path, data, { canOwn: true });
  }
  pyodide.runPython("import importlib; importlib.invalidate_caches()");
}

// ---------------------------------------------------------------- start
async function start() {
  post({ type: "status", msg: "Loading Python…" });
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
  installWheels(await wheelFiles);
  mark("installed");
  post({ type: "status", msg: "Starting the app…" });
  pyodide.runPython(CONFIG.prelude);
  mark("prelude_done");
  const get = (name) => pyodide.globals.get(name);
  py = {
    quickStart: get("_pg_quick_start"), quick: get("_pg_quick"), finish: get("_pg_quick_finish"),
    warm: get("_pg_warm"), run: get("_pg_run_app"), link: get("_pg_link"), patch: get("_pg_patch"),
    location: get("_pg_location"),
  };
  // The engine and the model only: the sketch comes alive while Panel still has to load.
  const hello = await fromPage.hello;
  post({ type: "quick", view: JSON.parse(py.quickStart(hello.hash || "")) });
  quickLive = true;
  mark("quick_ready");
  post({ type: "status", msg: "Loading the full editor…" });
  const names = pyodide.toPy(CONFIG.warm);
  // callPromising lets Python suspend mid-import (stack switching) so the sketch stays live.
  let warmed = false;
  if (typeof WebAssembly.Suspending === "function") {
    try {
      await py.warm.callPromising(names);
      warmed = true;
    } catch (err) {
      console.warn("Importing Panel without stack switching: " + err);
    }
  }
  if (!warmed) py.warm(names); // what is already imported is skipped

  names.destroy();
  mark("warm_done");
  post({ type: "warm" });
  const handoff = await fromPage.handoff;
  quickLive = false;
  const last = py.finish(handoff.code);
  if (last) post({ type: "quick", view: JSON.parse(last), action: "finish" });
  post({ type: "status", msg: "Opening the full editor…" });
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
    const t0 = performance.now();
    try {
      py.patch(msg.patch);
    } finally {
      post({ type: "idle", ms: performance.now() - t0 }); // Python's share of an update
    }
  } else if (msg.type === "location") {
    py.location(msg.location);
  }
}

// The sketch's commands and the start-up handshake are answered at once, between the steps of
// the start (Python yields while it imports Panel); the app's messages wait their turn.
function quickCommand(msg) {
  let view = null;
  try {
    if (quickLive) view = JSON.parse(py.quick(msg.action, msg.code) || "null");
  } finally {
    post({ type: "quick", view, action: msg.action });
  }
}

self.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === "hello" || msg.type === "handoff") fromPage[msg.type].resolve(msg);
  else if (msg.type === "quick") {
    try {
      quickCommand(msg);
    } catch (err) {
      reportError(err);
    }
  } else queue = queue.then(() => handle(msg)).catch(reportError);
};

function reportError(err) {
  console.error(err);
  post({ type: "error", msg: String((err && err.message) || err) });
}

queue = start().catch(reportError);
