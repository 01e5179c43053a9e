"""Drives the playground page the way a person does, for both panel serve and the static site."""
import json
import re
import time

READY_JS = ("() => window.Bokeh && Bokeh.documents.length > 0 && "
            "!document.body.classList.contains('pn-loading') && "
            "Bokeh.documents[Bokeh.documents.length - 1].get_model_by_name('graph_nodes') !== null && "
            "Bokeh.documents[Bokeh.documents.length - 1].get_model_by_name('graph_nodes').data.label.length > 0")
_SOURCE_JS = """(name) => {
  const doc = Bokeh.documents[Bokeh.documents.length - 1];
  const src = doc.get_model_by_name(name);
  const out = {};
  for (const [k, v] of src.data.entries ? src.data.entries() : Object.entries(src.data)) out[k] = Array.from(v);
  return out;
}"""


_POINT_JS = """([source, column, value, xs, ys]) => {
  const doc = Bokeh.documents[Bokeh.documents.length - 1];
  const fig = doc.get_model_by_name('graph_figure');
  const src = doc.get_model_by_name(source);
  const d = src.data instanceof Map ? Object.fromEntries(src.data) : src.data;
  const i = Array.from(d[column]).indexOf(value);
  for (const root of Object.values(Bokeh.index)) {
    const stack = [root];
    while (stack.length) {
      const v = stack.pop();
      if (v.model === fig) {
        const box = v.canvas_view.el.getBoundingClientRect();
        return [box.left + v.frame.x_scale.compute(d[xs][i]), box.top + v.frame.y_scale.compute(d[ys][i])];
      }
      for (const c of (v.child_views || [])) stack.push(c);
    }
  }
  return null;
}"""


_FRAME_JS = """() => {
  const doc = Bokeh.documents[Bokeh.documents.length - 1];
  const fig = doc.get_model_by_name('graph_figure');
  const font = fig.renderers.find(r => r.glyph.text !== undefined && r.glyph.text.field == 'caption').glyph.text_font_size;
  return {width: fig.inner_width, height: fig.inner_height, x: [fig.x_range.start, fig.x_range.end],
          y: [fig.y_range.start, fig.y_range.end], tags: fig.tags, font: parseFloat(font.value)};
}"""


class PlaygroundPage:
    def __init__(self, page, timeout=120_000):
        self.page = page
        self.timeout = timeout
        if hasattr(page, "set_default_timeout"):  # (a Frame, for a page inside an iframe, has none)
            page.set_default_timeout(60_000)  # CI machines are loaded: waits are generous, never sleeps

    def open(self, url):
        self.page.goto(url)
        self.wait_ready()
        return self

    def wait_ready(self):
        self.page.wait_for_function(READY_JS, timeout=self.timeout)

    def source(self, name):
        return self.page.evaluate(_SOURCE_JS, name)

    def nodes(self):
        return self.source("graph_nodes")

    def frame(self):
        """The graph plot's size in pixels, its ranges, the extent Python asked to fit (tags) and the
        node labels' font size in pixels."""
        return self.page.evaluate(_FRAME_JS)

    def node(self, label):
        data = self.nodes()
        i = data["label"].index(label)
        return {k: v[i] for k, v in data.items()}

    def wait_for(self, predicate, timeout=60.0, what="condition"):
        end = time.monotonic() + timeout
        last = None
        while time.monotonic() < end:
            try:
                last = self.nodes()
                if predicate(last):
                    return last
            except Exception as exc:  # noqa: BLE001 - the document may be swapping
                last = exc
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; last graph_nodes: {json.dumps(last, default=str)[:2000]}")

    def click(self, name):
        self.page.get_by_role("button", name=name, exact=True).click()

    def check(self, label, value=True):
        # Panel renders <input type=checkbox><div class="bk-label">name</div> inside a shadow root.
        box = self.page.locator(".bk-label", has_text=re.compile(rf"^{re.escape(label)}$")).locator(
            "xpath=preceding-sibling::input[@type='checkbox']").first
        box.set_checked(value)

    def set_code(self, code):
        editor = self.page.locator(".ace_text-input").first
        editor.focus()
        self.page.keyboard.press("Control+A")
        self.page.keyboard.press("Delete")
        self.page.keyboard.insert_text(code)

    def run(self, code=None):
        if code is not None:
            self.set_code(code)
        self.click("Run")

    def shared_url(self, done, timeout=30.0):
        """The page's URL once its link state (the hash) satisfies ``done(state)``: the server sets
        the hash after its reply, so a link read at once can lag an action behind."""
        from playground.model import links

        end = time.monotonic() + timeout
        while True:
            url = self.page.url
            text = url.partition("#")[2]
            if text and done(links.decode(text)):
                return url
            if time.monotonic() > end:
                raise AssertionError(f"the link never showed the state; last: {url[:200]}")
            time.sleep(0.1)

    def step(self, button):
        """A button of the backward-steps player: first, previous, play, pause, next, last."""
        self.page.locator(f".ap-player button.{button}").click()

    def tap(self, label):
        """Click the graph node labelled ``label`` where it is drawn on the canvas."""
        self._click_at(["graph_nodes", "label", label, "x", "y"])

    def _click_at(self, where, timeout=10.0):
        # A redraw sends the data before the new zoom: click once the point has stayed put a moment.
        point, end = None, time.monotonic() + timeout
        while True:
            now = self.page.evaluate(_POINT_JS, where)
            if now == point or time.monotonic() > end:
                break
            point = now
            time.sleep(0.3)
        self.page.mouse.move(1, 1)  # away first: the tooltip of the last node hovered may cover the point
        self.page.mouse.click(*point)

    def tap_tab(self, title):
        """Click the title tab of an open module call (``graph_frames``), e.g. "▾ model"."""
        self._click_at(["graph_frames", "title", title, "tx", "ty"])

    def step_text(self):
        return " ".join(self.page.locator(".ap-step").all_inner_texts())

    def toggle(self, name):
        self.page.locator(".ap-toggles button").filter(has_text=re.compile(rf"^{re.escape(name)}$")).click()

    def output_text(self):
        return self.page.locator(".ap-out, .ap-error, .ap-note").all_inner_texts()

