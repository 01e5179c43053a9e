/* Page side of the static site (build.py inlines it at the top of <head>).
 *
 * Starts the Python worker before anything else loads. The sketch (build.py inlines it) is the
 * first view; it comes alive once the worker has the engine (Run, Backward, Zero grad answered
 * by playground/quick.py). When Panel is loaded the page hands the sketch's code over, loads
 * BokehJS, draws the live document in the sketch's place, syncs the two documents both ways,
 * then registers the service worker for offline use.
 *
 * window.__site exposes progress for tests and benchmarks:
 *   marks: {name: ms since navigation start}, quick, ready, error, offlineReady, timings
 *   (Python side).
 */
(function () {
  "use strict";
  const site = (window.__site = { marks: {}, ready: false, error: null, offlineReady: false });
  const mark = (name, t) => {
    site.marks[name] = t === undefined ? performance.now() : t - performance.timeOrigin;
  };
  mark("boot");
  // A course page's iframe (?embed): the sketch's header is compact too, as the app's will be.
  if (/(^|&)embed(=(?!(0|false|no)(&|$))[^&]*)?(&|$)/i.test(location.search.slice(1))) {
    document.documentElement.classList.add("pg-embed");
  }

  const worker = new Worker("worker.js");
  worker.postMessage({ type: "hello", hash: location.hash });
  worker.busy = false;
  worker.queue = [];
  let jsdoc = null;
  let patching = 0;
  const workerUrls = [];

  const domReady = new Promise((resolve) => {
    if (document.readyState !== "loading") resolve();
    else document.addEventListener("DOMContentLoaded", resolve, { once: true });
  });

  function status(msg) {
    const el = document.getElementById("pg-loading-msg");
    if (el) el.textContent = msg;
  }

  function fail(msg) {
    site.error = msg;
    console.error("Python worker failed: " + msg);
    domReady.then(() => {
      document.body.classList.add("pg-failed");
      status("Python failed to start: " + msg);
    });
  }

  // Code typed but not yet run survives a reload: kept in localStorage with the state it was
  // typed over (the URL hash), and put back in the editor when that state is opened again.
  const DRAFT_KEY = "pg-draft";
  function saveDraft(code) {
    try {
      localStorage.setItem(DRAFT_KEY, JSON.stringify({ base: location.hash, code }));
    } catch (err) {} // storage off (private mode): nothing kept, nothing breaks
  }
  function loadDraft() {
    try {
      const draft = JSON.parse(localStorage.getItem(DRAFT_KEY) || "null");
      return draft && draft.base === location.hash && typeof draft.code === "string" ? draft.code : null;
    } catch (err) {
      return null;
    }
  }

  function sendChange(event) {
    if ((event.setter_id != null && event.setter_id === "py") || patching > 0) return;
    if (event.attr === "code_input" && typeof event.value === "string") saveDraft(event.value);
    if (worker.busy) {
      // Everything waits its turn, clicks too: a click that overtook the text typed before it would
      // run the editor's older code. Of one attribute's changes since the last such event, only
      // the latest is kept.
      if (event.model && event.attr) {
        const barrier = worker.queue.findLastIndex((e) => !(e.model && e.attr));
        worker.queue = worker.queue.filter(
          (e, i) => i < barrier || !(e.model === event.model && e.attr === event.attr));
      }
      worker.queue.push(event);
      return;
    }
    worker.busy = true;
    watchBusy();
    worker.postMessage({ type: "patch", patch: jsdoc.create_json_patch([event]) });
  }

  // Python loops are stopped by the runner's time limit; only one long NumPy call can keep the
  // worker busy past this. Then offer a restart: a reload, and the URL holds the last good state.
  const BUSY_MS = 12000;
  let busyTimer = null;
  function watchBusy() {
    clearTimeout(busyTimer);
    busyTimer = setTimeout(showBusy, BUSY_MS);
  }
  function notBusy() {
    clearTimeout(busyTimer);
    busyTimer = null;
    document.getElementById("pg-busy")?.remove();
  }
  function showBusy() {
    if (document.getElementById("pg-busy")) return;
    const box = document.createElement("div");
    box.id = "pg-busy";
    box.setAttribute("role", "alert");
    const text = document.createElement("span");
    text.textContent = "Python has been busy for " + BUSY_MS / 1000 + " s (a very long computation?). ";
    const button = document.createElement("button");
    button.textContent = "Restart Python";
    button.onclick = () => {
      // The code that kept Python busy must not come back as a draft and run again.
      try {
        localStorage.removeItem(DRAFT_KEY);
      } catch (err) {}
      location.reload();
    };
    box.append(text, button);
    document.body.append(box);
  }

  // BokehJS and Panel's scripts (build.py lists them in window.__pgScripts): needed only when
  // the full app arrives, so they load once the sketch is live, executed in their order.
  let scriptsLoaded = null;
  function loadScripts() {
    if (!scriptsLoaded) {
      scriptsLoaded = domReady.then(() => Promise.all((window.__pgScripts || []).map((src) =>
        new Promise((resolve, reject) => {
          const el = document.createElement("script");
          el.src = src;
          el.async = false;
          el.onload = resolve;
          el.onerror = () => reject(new Error("could not load " + src));
          document.head.append(el);
        }))));
      scriptsLoaded.then(() => mark("scripts_loaded"), () => {});
    }
    return scriptsLoaded;
  }

  async function render(msg) {
    await domReady;
    await loadScripts();
    const docs_json = JSON.parse(msg.docs_json);
    const render_items = JSON.parse(msg.render_items);
    const root_ids = JSON.parse(msg.root_ids);
    // The converter laid out one placeholder per root of the same app: map the live roots onto them.
    const data_roots = [];
    for (const el of document.querySelectorAll("[data-root-id]")) {
      data_roots.push([el.getAttribute("data-root-id"), el.id]);
    }
    data_roots.sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const roots = {};
    for (let i = 0; i < data_roots.length; i++) roots[root_ids[i]] = data_roots[i][1];
    render_items[0].roots = roots;
    render_items[0].root_ids = root_ids;

    for (const el of document.querySelectorAll("[data-root-id]")) el.innerHTML = "";
    const [views] = await Bokeh.embed.embed_items(docs_json, render_items);
    mark("rendered");
    document.getElementById("pg-sketch")?.remove();
    jsdoc = [...views.roots.values()][0].model.document;
    jsdoc.on_change(sendChange, false);
    worker.postMessage({ type: "rendered" });
    worker.postMessage({ type: "location", location: JSON.stringify(window.location) });
  }

  function interactive() {
    site.ready = true;
    document.body.classList.remove("pg-loading", "pn-loading", "pg-quick", "pg-quick-busy");
    status("");
    // After the first visit everything is served by the service worker: the app works offline.
    window.addEventListener("load", registerServiceWorker, { once: true });
    if (document.readyState === "complete") registerServiceWorker();
  }

  let swStarted = false;
  async function registerServiceWorker() {
    if (swStarted || !("serviceWorker" in navigator)) return;
    swStarted = true;
    try {
      await navigator.serviceWorker.register("sw.js");
      const reg = await navigator.serviceWorker.ready;
      // Files the build could not foresee (editor modes, fonts) are cached from what this
      // visit actually loaded.
      const urls = performance.getEntriesByType("resource").map((e) => e.name).concat(workerUrls);
      const channel = new MessageChannel();
      channel.port1.onmessage = (e) => {
        site.offlineReady = e.data === "cached";
      };
      reg.active.postMessage({ type: "cache", urls: [location.href, ...urls] }, [channel.port2]);
    } catch (err) {
      console.warn("No offline support: " + err);
    }
  }

  // ---------------------------------------------------------------- the live sketch
  // Until Panel is loaded, the sketch (views/sketch.py) is the playground: its editor, Run,
  // Backward and Zero grad go to playground.quick in the worker, which sends back new regions.
  const sketch = {
    live: false,
    el: (id) => document.getElementById(id),
    buttons: () => document.querySelectorAll("#pg-sketch button[data-pg]"),
    send(action) {
      const code = sketch.el("pg-sk-code");
      if (!sketch.live || !code) return;
      document.body.classList.add("pg-quick-busy");
      watchBusy();
      worker.postMessage({ type: "quick", action, code: code.value });
    },
    start() {
      const code = sketch.el("pg-sk-code");
      if (!code) return;
      code.readOnly = false;
      for (const b of sketch.buttons()) {
        b.disabled = false;
        b.removeAttribute("title");
        b.onclick = () => sketch.send(b.dataset.pg);
      }
      code.addEventListener("input", () => saveDraft(code.value));
      code.addEventListener("keydown", (e) => {
        if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          sketch.send("run");
        } else if (e.key === "Tab" && !e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey) {
          e.preventDefault(); // Python needs indenting: Tab inserts four spaces (Shift+Tab leaves)
          code.setRangeText("    ", code.selectionStart, code.selectionEnd, "end");
          saveDraft(code.value);
        }
      });
      sketch.live = true;
      document.body.classList.add("pg-quick");
    },
    show(view, first) {
      const set = (id, html) => {
        const el = sketch.el(id);
        if (el && html !== undefined) el.innerHTML = html;
      };
      set("pg-sk-graph", view.graph);
      set("pg-sk-output", view.output);
      set("pg-sk-tensors", view.tensors);
      for (const [id, text] of [["pg-sk-status", view.status], ["pg-sk-backward-output", view.backward_output]]) {
        if (sketch.el(id)) sketch.el(id).textContent = text;
      }
      if (first) {
        const draft = loadDraft();
        sketch.el("pg-sk-code").value = draft === null ? view.code : draft;
        document.querySelector("#pg-sketch .pg-sk-body").classList.toggle("pg-sk-wide", view.wide === true);
        document.querySelector("#pg-sketch .pg-sk-head small").textContent = view.tagline;
        if (view.title) {
          document.querySelector("#pg-sketch .pg-sk-title").textContent = view.title;
          document.querySelector("#pg-sketch .pg-sk-left p").textContent = view.explain;
        }
      }
      if (view.link) history.replaceState(history.state, "", "#" + view.link);
    },
    stop() {
      sketch.live = false;
      for (const b of sketch.buttons()) b.disabled = true;
      const code = sketch.el("pg-sk-code");
      if (code) code.readOnly = true;
      return code ? code.value : null;
    },
  };

  // Panel is in: hand the sketch's code over and let the app take its place. BokehJS loads
  // while the worker builds the app (not earlier: it would keep this thread from the sketch).
  // Tests keep the sketch live with window.__pgHold = true.
  function handoff() {
    if (window.__pgHold) {
      setTimeout(handoff, 50);
      return;
    }
    worker.postMessage({ type: "handoff", code: sketch.stop() });
    loadScripts();
  }

  function onQuick(msg) {
    if (msg.action) {
      document.body.classList.remove("pg-quick-busy");
      notBusy();
    }
    if (!msg.view) return;
    domReady.then(() => {
      const first = !sketch.live && !msg.action;
      if (first) sketch.start();
      sketch.show(msg.view, first);
      if (first) {
        mark("quick");
        site.quick = true;
      } else {
        site.quickCommands = (site.quickCommands || 0) + 1;
        mark("quick_reply");
      }
    });
  }

  worker.onmessage = (event) => {
    const msg = event.data;
    if (msg.type === "quick") {
      onQuick(msg);
    } else if (msg.type === "warm") {
      domReady.then(handoff);
    } else if (msg.type === "patch") {
      if (!jsdoc) return;
      patching += 1;
      try {
        jsdoc.apply_json_patch(msg.patch, msg.buffers);
      } finally {
        patching -= 1;
      }
    } else if (msg.type === "idle") {
      site.pythonMs = (site.pythonMs || 0) + msg.ms; // total, for benchmarks
      if (worker.queue.length) {
        const patch = jsdoc.create_json_patch(worker.queue);
        worker.queue = [];
        watchBusy();
        worker.postMessage({ type: "patch", patch });
      } else {
        worker.busy = false;
        notBusy();
      }
    } else if (msg.type === "status") {
      domReady.then(() => status(msg.msg));
    } else if (msg.type === "mark") {
      mark(msg.name, msg.t);
    } else if (msg.type === "render") {
      mark("doc_ready");
      site.timings = msg.timings;
      render(msg).catch((err) => fail(String(err)));
    } else if (msg.type === "linked") {
      mark("interactive");
      interactive();
    } else if (msg.type === "resources") {
      workerUrls.push(...msg.urls);
    } else if (msg.type === "error") {
      fail(msg.msg);
    }
  };
  worker.onerror = (event) => fail(event.message || "worker error");

  // First view: the sketch (HTML + SVG inlined by build.py) paints with the first frame.
  const firstPaint = () => {
    if (document.getElementById("pg-sketch") || document.readyState !== "loading") mark("first_view");
    else requestAnimationFrame(firstPaint);
  };
  requestAnimationFrame(firstPaint);
})();
