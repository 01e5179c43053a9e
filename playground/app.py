"""The playground app: wires the model's session to the views.

    panel serve playground/app.py        (user code runs in a limited child process)
    python build.py                      (static site: everything runs in the browser)
"""
import sys
import time
from html import escape

import panel as pn
import param
from bokeh.models import CustomJS, Tooltip

from playground.model import examples, exercises, links
from playground.model import graph as graph_mod
from playground.model.modules import BOX, closing
from playground.model.session import make_session
from playground.views import panels
from playground.views.graph import FIND_VIEW_JS, KIND_NAMES, STYLE, GraphView
from playground.views.style import CSS, player_css

IN_BROWSER = sys.platform == "emscripten"
_DEDUPE_S = 1.0  # Run clicked right after the editor lost focus (which also submits) runs once
AUTO_GROUP = 40  # nodes: a bigger graph with module calls opens with its modules as boxes
EDITOR_LINE_PX = 14  # the code editor's line height
GRAPH_HEIGHT, WIDE_GRAPH_HEIGHT = 460, 680  # the graph plot's pixels beside the code; across the page, at most
# Narrower than both columns side by side, the graph has the page's width already: no Enlarge button
# (but the way back from a wide graph stays).
_NARROW_CSS = "@media (max-width: 920px) { .ap-wide:not(.ap-on) { display: none; } }"
# (code column, graph column) side by side; wide: the graph across the page first, the code under it
_COLUMN_STYLES = {False: ({"flex": "2 1 360px", "min-width": "0"}, {"flex": "3 1 540px", "min-width": "0"}),
                  True: ({"flex": "1 1 100%", "min-width": "0"}, {"flex": "1 1 100%", "min-width": "0", "order": "-1"})}

_COPY_JS = """
const url = window.location.href;
if (navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(url).catch(() => {}); }
"""
# The embed code is kept current by the app (_sync_link); the click only copies it.
_COPY_EMBED_JS = """
if (code.value && navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(code.value).catch(() => {}); }
"""
# ← → Home End step the backward player from anywhere on the page but where they mean something
# else (the code editor, a text field, a list). The player's own buttons do the stepping, so the
# slider and the graph follow as for a click; a running play is paused first.
_KEYS_JS = FIND_VIEW_JS + """
if (!window.__ap_keys) {
  window.__ap_keys = true;
  const moves = {ArrowLeft: 'previous_frame', ArrowRight: 'next_frame', Home: 'first_frame', End: 'last_frame'};
  document.addEventListener('keydown', (e) => {
    const move = moves[e.key];
    if (move === undefined || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const target = e.composedPath()[0], typing = 'input, textarea, select, .ace_editor';
    if (target instanceof Element && (target.isContentEditable || target.closest(typing))) return;
    const view = find_view(v => (v.model.css_classes || []).includes('ap-player'));
    if (view === null || !view.model.visible) return;
    e.preventDefault();
    if (view.model.direction !== 0) view.pause_animation();
    view[move]();
  });
}
"""
NAME = "∂ Autograd Playground"

# Texts the app writes itself in the chosen language (examples carry their own translations).
UI = {
    "en": {"copied": "Link copied: it reopens exactly this state.",
           "modules": "modules as boxes (tap one to open it, its tab to close it)",
           "player": {"first": "before the first step (Home)", "previous": "previous step (←)", "pause": "pause",
                      "play": "play the steps", "next": "next step (→)", "last": "the last step (End)"},
           "answer": "your answer: a number, a list, or None",
           "check": "Runs the code afresh, presses Backward as the question says, and checks your answer",
           "embed": "Embed code copied. Paste it into a course page's HTML: it shows this playground, in this "
                    "state, and each reader gets their own copy to play with.",
           "open": "Open in a new tab ↗",
           "own_code": panels.OWN_CODE["en"],
           "restore": ("Restore the example", "Put the example's own code back and run it"),
           "labels": {"run": "Run", "copy": "Copy link", "embed": "Embed", "zero": "Zero grad", "check": "Check",
                      "copy_tip": "Copy a link that reopens exactly this state",
                      "embed_tip": "Copy HTML that shows this playground, as it is now, in a course page",
                      "keys": "Ctrl+Enter runs", "graph": "Computation graph", "output": "output", "tensors": "Tensors",
                      "history": "Gradient history", "steps": "backward steps", "run_tip": "Run the code (Ctrl+Enter)",
                      "gradcheck": "Gradient check", "check_grads": "Check gradients",
                      "check_grads_tip": "Compare autograd's gradient of the output with finite differences "
                                         "(the code is run again with each element nudged)",
                      "wide": ("⤢ Enlarge graph", "Give the graph the page's whole width and more height "
                                                  "(the code goes under it)"),
                      "narrow": ("⤡ Side by side", "The graph beside the code again")}},
    "zh": {"copied": "链接已复制：打开它会恢复完全相同的状态。",
           "modules": "模块显示为方框（点击方框展开，点击标签收起）",
           "player": {"first": "回到第一步之前（Home）", "previous": "上一步（←）", "pause": "暂停", "play": "逐步播放",
                      "next": "下一步（→）", "last": "最后一步（End）"},
           "answer": "你的答案：一个数、一个列表，或 None",
           "check": "重新运行代码，按题目要求执行 Backward，然后核对你的答案",
           "embed": "嵌入代码已复制。把它粘贴到课程网页的 HTML 中：网页会显示处于此状态的 playground，每位读者都能独立操作。",
           "open": "在新标签页中打开 ↗",
           "own_code": panels.OWN_CODE["zh"],
           "restore": ("恢复示例", "换回示例原来的代码并运行"),
           "labels": {"run": "运行", "copy": "复制链接", "embed": "嵌入", "zero": "梯度清零", "check": "核对",
                      "copy_tip": "复制一个链接，打开它会恢复完全相同的状态",
                      "embed_tip": "复制 HTML 代码：把它放进课程网页，就会显示此刻的 playground",
                      "keys": "Ctrl+Enter 运行", "graph": "计算图", "output": "输出", "tensors": "张量",
                      "history": "梯度历史", "steps": "反向传播步骤", "run_tip": "运行代码（Ctrl+Enter）",
                      "gradcheck": "梯度检验", "check_grads": "检验梯度",
                      "check_grads_tip": "用有限差分检验 autograd 对输出求的梯度（把每个元素加减一点后重新运行代码）",
                      "wide": ("⤢ 放大计算图", "让计算图占满页面宽度并加高（代码移到图的下方）"),
                      "narrow": ("⤡ 并排显示", "计算图回到代码旁边")}},
}


def _wrapping(*objects, sizing_mode="stretch_width", css_classes=(), padding=None, **flex):
    """A row whose items flow onto the next line when it is too narrow (pn.FlexBox would need nh3,
    which the static site does not ship)."""
    styles = {"flex-wrap": "wrap", "min-width": "0", **{k.replace("_", "-"): v for k, v in flex.items()}}
    if padding:
        styles["padding"] = padding
    return pn.Row(*objects, sizing_mode=sizing_mode, css_classes=list(css_classes), styles=styles)


def _tip(text, position):
    """A button's hover text shown on the given side (Panel's own go to the right)."""
    return Tooltip(content=text, position=position, stylesheets=[":host { white-space: initial; max-width: 300px; }"])


def _legend(language="en"):
    words = KIND_NAMES.get(language, KIND_NAMES["en"])
    items = []
    for kind in ("leaf", "accumulate", "function", "tensor", "output", "const", "detached", "module"):
        fill, line, _ = STYLE[kind]
        items.append(f'<span><span class="sw" style="background:{fill};border-color:{line}"></span>'
                     f"{words[kind]}</span>")
    items.append(f'<span><span class="sw" style="background:#e5e7eb;opacity:.35"></span>{words["freed"]}</span>')
    return f'<div class="ap-legend">{"".join(items)}</div>'


class Playground(pn.viewable.Viewer):
    """Editor, backward controls, graph, inspector and history over one session."""

    language = param.Selector(objects=["en", "zh"], default="en")
    example = param.String(default=examples.DEFAULT_KEY, allow_None=True)

    def __init__(self, session=None, state=None, notice=None, link=None, **params):
        """``session``/``state``: carry on from a quick start (playground.quick) instead of
        running the default example; ``notice``: a message to show at once; ``link``: the
        hash the page already shows for ``state`` (not to be reopened)."""
        super().__init__(**params)
        self.session = session or make_session("in_process" if IN_BROWSER else "subprocess")
        self.snapshot = {}
        self._quiet = False
        self._last_run = (None, 0.0)
        self._last_hash = None
        self._restored = link
        self._modules = None  # module calls drawn as boxes: the set of open ones (None: every node)
        self._modules_chosen = False  # the user (or a link) set it: no automatic grouping

        ex = examples.get_example(self.example or examples.DEFAULT_KEY)
        self.editor = pn.widgets.CodeEditor(
            value=ex.code, value_input=ex.code, language="python", theme="chrome", height=300,
            sizing_mode="stretch_width", label="code", on_keyup=False,
        )
        self.run_button = pn.widgets.Button(label="Run", color="primary", width=90,
                                            description="Run the code (Ctrl+Enter)")
        self.example_select = pn.widgets.Select(options=self._example_options(), value=ex.key, width=260)
        self.language_toggle = pn.widgets.RadioButtonGroup(options={"English": "en", "中文": "zh"}, value="en",
                                                           color="light")
        self.copy_button = pn.widgets.Button(label="Copy link", color="light", width=100)
        self.copy_button.js_on_click(code=_COPY_JS)
        self.embed_button = pn.widgets.Button(label="Embed", color="light", width=90)
        self.embed_code = pn.widgets.TextAreaInput(value="", height=64, sizing_mode="stretch_width")
        self.embed_button.js_on_click(args={"code": self.embed_code}, code=_COPY_EMBED_JS)
        self.embed_note = panels.html_pane()
        self.embed_box = pn.Column(self.embed_note, self.embed_code, visible=False, sizing_mode="stretch_width",
                                   css_classes=["ap-embed"])
        self._embedded = False  # shown inside a course page (?embed): the compact header
        self.title_pane = pn.pane.HTML(self._title())
        self.open_pane = pn.pane.HTML("", visible=False)

        self.output_select = pn.widgets.Select(label="output", options=[], width=140)
        self.gradient_input = pn.widgets.TextInput(label="gradient", placeholder="torch.ones_like(out)", width=200)
        self.retain_box = pn.widgets.Checkbox(label="retain_graph", value=ex.retain_graph)
        self.create_box = pn.widgets.Checkbox(label="create_graph", value=ex.create_graph)
        self.backward_button = pn.widgets.Button(label="Backward", color="success", width=100)
        self.zero_button = pn.widgets.Button(label="Zero grad", color="warning", width=100)
        self.toggles = pn.widgets.CheckButtonGroup(label="requires_grad", options=[], value=[], color="primary",
                                                   variant="outline", css_classes=["ap-toggles"])

        # Backward one node at a time: the steps of the last Backward, the graph drawn as it stood.
        self.step_player = pn.widgets.Player(
            label="backward steps", start=0, end=1, value=1, interval=1400, loop_policy="once",
            show_loop_controls=False, visible_buttons=["first", "previous", "play", "pause", "next", "last"],
            scale_buttons=0.8, width=260, visible=False, css_classes=["ap-player"],
            stylesheets=[player_css(UI["en"]["player"])],
        )
        # (wide enough for a rule and a 2x2 grad: on a phone it goes under the player)
        self.step_pane = panels.html_pane(visible=False, styles={"flex": "1 1 300px", "min-width": "260px"})
        self.exercise_pane = panels.html_pane()
        self.answer_input = pn.widgets.TextInput(placeholder=UI["en"]["answer"], width=300)
        self.check_button = pn.widgets.Button(label="Check", color="primary", width=90, description=UI["en"]["check"])
        self.verdict_pane = panels.html_pane()
        self.restore_button = pn.widgets.Button(label=UI["en"]["restore"][0], description=UI["en"]["restore"][1],
                                                color="light", visible=False, margin=(5, 5, 5, 20))
        self.exercise_box = pn.Column(self.exercise_pane,
                                      _wrapping(self.answer_input, self.check_button),
                                      self.verdict_pane, visible=False, sizing_mode="stretch_width",
                                      css_classes=["ap-exercise"])
        self._verdict = None  # the last answer's verdict, in each language
        self.modules_box = pn.widgets.Checkbox(label=UI["en"]["modules"], value=False, visible=False,
                                               css_classes=["ap-modules"])
        self.graph = GraphView(height=GRAPH_HEIGHT, language=self.language)
        self.wide_button = pn.widgets.Button(label=UI["en"]["labels"]["wide"][0], color="light",
                                             css_classes=["ap-wide"])
        self._wide = False  # the graph across the page, above the code
        self.legend = pn.pane.HTML(_legend(self.language), sizing_mode="stretch_width")
        self.graph_pane = pn.pane.Bokeh(self.graph.figure, sizing_mode="stretch_width")
        self.explain_pane = panels.html_pane()
        self.output_pane = panels.html_pane()
        self.inspector_pane = panels.html_pane()
        self.history_pane = panels.html_pane()
        self.check_grads_button = pn.widgets.Button(label="Check gradients", color="primary", width=150)
        self.gradcheck_pane = panels.html_pane()
        self.banner = panels.html_pane(visible=False)
        self.status = panels.html_pane()

        self.run_button.on_click(lambda e: self.run(self._editor_text()))
        self.editor.param.watch(self._on_editor_submit, "value")
        self.backward_button.on_click(lambda e: self.backward())
        self.zero_button.on_click(lambda e: self._show(self.session.zero_grad()))
        self.copy_button.on_click(lambda e: self._copied())
        self.embed_button.on_click(lambda e: self._embed_clicked())
        self.check_button.on_click(lambda e: self.check_answer())
        self.restore_button.on_click(lambda e: self.load_example(self.example))
        self.check_grads_button.on_click(lambda e: self.check_gradients())
        self.wide_button.on_click(lambda e: self.set_wide(not self._wide))
        self.answer_input.param.watch(lambda e: self.check_answer(), "enter_pressed")
        self.toggles.param.watch(self._on_toggle, "value")
        self.example_select.param.watch(self._on_example, "value")
        self.step_player.param.watch(lambda e: self._on_step(), "value")
        self.graph.nodes.selected.on_change("indices", self._on_tap)
        self.graph.frames.selected.on_change("indices", self._on_frame_tap)
        self.modules_box.param.watch(self._on_modules_box, "value")
        self.language_toggle.param.watch(lambda e: setattr(self, "language", e.new), "value")
        self.param.watch(lambda e: self._on_language(), "language")
        self.output_select.param.watch(self._on_output, "value")
        for w in (self.gradient_input, self.retain_box, self.create_box):
            w.param.watch(lambda e: self._sync_link(), "value")

        self._layout = self._build_layout()
        self._apply_example_settings(ex)
        if state:
            self.restore(state)
        else:
            self._show(self.session.run(ex.code))
        if notice:
            self._message(notice)
        if pn.state.curdoc is not None:
            pn.state.curdoc.js_on_event("document_ready", self.graph.fit_js)
            pn.state.curdoc.js_on_event("document_ready", CustomJS(code=_KEYS_JS))
        if pn.state.curdoc is not None or IN_BROWSER:
            pn.state.onload(self._restore_from_link)
            if pn.state.location is not None:
                # In the browser the hash arrives after start-up; a pasted link changes it too.
                pn.state.location.param.watch(lambda e: self._restore_from_link(), "hash")
                pn.state.location.param.watch(lambda *events: self._on_location(), ["search", "hostname", "pathname"])
                self._on_location()
            if not IN_BROWSER:
                pn.state.on_session_destroyed(lambda ctx: self.session.close())

    # ----- commands -----
    def run(self, code):
        code, last = code or "", self._last_run
        if code == last[0] and time.monotonic() - last[1] < _DEDUPE_S:
            return
        self._show(self.session.run(code))
        self._last_run = (code, time.monotonic())  # (the window counts from the end of a long run)

    def _output_of_editor_code(self):
        """The chosen output, after running the editor's code if it changed (None: no output)."""
        if self._editor_text() != self.snapshot.get("code"):
            self.run(self._editor_text())
        return self.output_select.value or None

    def backward(self):
        output = self._output_of_editor_code()
        if output is not None:
            self._show(self.session.backward(output, self.gradient_input.value or None,
                                             self.retain_box.value, self.create_box.value))

    def check_answer(self):
        """Check the answer to the example's question: on a fresh run of the code with the
        question's Backward calls (the graph then shows them), unless the code needs setting up first."""
        ex = examples.get_example(self.example) if self.example else None
        if ex is None or ex.exercise is None:
            return
        code = self._editor_text()
        if code != self.snapshot.get("code"):
            self.run(code)
        setup = {lang: exercises.setup_needed(ex.exercise, self.snapshot, lang) for lang in UI}
        if setup["en"] is not None:
            self._verdict = {lang: {"status": "setup", "message": text} for lang, text in setup.items()}
        else:
            self._last_run = (code, time.monotonic())
            self._show(self.session.restore(code, exercises.backward_actions(ex.exercise, ex)))
            answer = self.answer_input.value_input
            self._verdict = {lang: exercises.check(ex.exercise, self.snapshot, answer, lang) for lang in UI}
        self._render_text()

    def check_gradients(self):
        """Autograd's gradient of the chosen output against finite differences (the third tab)."""
        output = self._output_of_editor_code()
        if output is None:
            return
        self._pending_step = self.step_player.value if self.step_player.visible else None  # (the step stays)
        self.tabs.active = 2  # (before the graph changes: see _show)
        self._show(self.session.gradcheck(output, self.gradient_input.value or None))

    def load_example(self, key):
        ex = examples.get_example(key)
        self.example = key
        self._verdict = None
        with self._silenced():
            self.answer_input.value = self.answer_input.value_input = ""
            self.example_select.options = self._example_options()
            self.example_select.value = key
        self._apply_example_settings(ex)
        self._set_code(ex.code)
        self._last_run = (None, 0.0)
        self.run(ex.code)

    def _editor_text(self):
        """What the user sees in the editor (``value`` lags until Ctrl+Enter or blur)."""
        text = self.editor.value_input
        return self.editor.value if text is None else text

    def _set_code(self, code):
        with self._silenced():
            self.editor.value = code
            self.editor.value_input = code

    # ----- events -----
    def _on_example(self, event):
        if not self._quiet and event.new:  # ("": the entry for a link's own code)
            self.load_example(event.new)

    def _on_editor_submit(self, event):
        if not self._quiet:
            self.run(event.new)

    def _on_toggle(self, event):
        if self._quiet:
            return
        old, new = set(event.old or []), set(event.new or [])
        for name in sorted(old ^ new):
            self._show(self.session.toggle(name, name in new))

    def _copied(self):
        self._sync_link()
        self._message(UI[self.language]["copied"], kind="note")

    def _embed_clicked(self):
        self._sync_link()
        self.embed_box.visible = not self.embed_box.visible
        self.embed_note.object = panels.banner_html(UI[self.language]["embed"], "note")

    def _on_location(self):
        loc = pn.state.location
        self.set_embedded(links.is_embedded(loc.search))
        self._sync_link()

    def set_embedded(self, embedded):
        """The compact view for a course page's iframe: a small title, a link to the full
        playground instead of the share buttons."""
        self._embedded = embedded
        self.title_pane.object = self._title()
        self.open_pane.visible = embedded
        self.copy_button.visible = self.embed_button.visible = not embedded
        self.embed_box.visible = self.embed_box.visible and not embedded
        self._fit_editor()

    def _title(self):
        if self._embedded:  # (a course page's frame: every pixel counts)
            return f'<h1 class="ap-title ap-title-small">{NAME}</h1>'
        return f'<h1 class="ap-title">{NAME}<small>{escape(panels.TAGLINE[self.language])}</small></h1>'

    def _fit_editor(self):
        # In a course page's frame every line counts: the editor fits the code, so the graph
        # comes into view sooner; elsewhere it keeps room to type.
        lines = self._editor_text().count("\n") + 1
        self.editor.height = min(max(EDITOR_LINE_PX * lines + 24, 120), 300) if self._embedded else 300

    def _page(self):
        loc = pn.state.location
        return links.page_address(loc.protocol, loc.hostname, loc.port, loc.pathname) if loc is not None else None

    def _restore_from_link(self):
        text = (pn.state.location.hash or "").lstrip("#") if pn.state.location else ""
        if not text or text in (self._restored, self._last_hash):
            return
        self._restored = text
        try:
            state = links.decode(text)
        except links.LinkError as exc:
            self._message(f"{exc} The default example was loaded instead.")
            self.load_example(examples.DEFAULT_KEY)
            return
        self.restore(state)
        if pn.state.curdoc is not None and not IN_BROWSER:
            pn.state.curdoc.add_next_tick_callback(self._resend_exercise_visibility)

    def restore(self, state):
        """Reopen a shared state: code (toggles included), settings, then the sender's actions."""
        with self._silenced():
            self.language_toggle.value = self.language = state["language"]
            # A link made by hand may carry code of its own and no example: then no example's
            # explanation or question is shown beside it.
            self.example = state["example"] if state["example"] in {e.key for e in examples.EXAMPLES} else None
            self._verdict = None
            self.answer_input.value = self.answer_input.value_input = ""
            self.example_select.options = self._example_options()
            self.example_select.value = self.example or ""
            self._set_code(state["code"])
            self.gradient_input.value = state["gradient"] or ""
            self.retain_box.value = state["retain_graph"]
            self.create_box.value = state["create_graph"]
            self._modules = set(state["modules"]) if isinstance(state["modules"], list) else None
            self._modules_chosen = state["modules"] is not None
            self.modules_box.value = self._modules is not None
            self.set_wide(state["wide"])
        self._pending_output = state["output"]
        self._pending_step = state["step"]
        self._last_run = (state["code"], time.monotonic())
        snap = self.session.restore(state["code"], state["actions"])
        check = state["check"]
        if check is not None and snap.ok:
            snap = self.session.gradcheck(check["output"], check["gradient"])
            self.tabs.active = 2
        self._show(snap)

    def set_wide(self, wide):
        """The graph across the whole page, taller, with the code under it (True), or beside the code."""
        if wide == self._wide:
            return
        self._wide = wide
        self._left.styles, self._right.styles = _COLUMN_STYLES[wide]
        self.graph.set_heights(GRAPH_HEIGHT, WIDE_GRAPH_HEIGHT if wide else GRAPH_HEIGHT)
        self._label_wide()
        self._sync_link()

    def _label_wide(self):
        label, tip = UI[self.language]["labels"]["narrow" if self._wide else "wide"]
        self.wide_button.param.update(label=label, description=_tip(tip, "left"),  # (at the page's right edge)
                                      css_classes=["ap-wide", "ap-on"] if self._wide else ["ap-wide"])

    # ----- rendering -----
    def _apply_example_settings(self, ex):
        with self._silenced():
            self.gradient_input.value = ex.gradient or ""
            self.retain_box.value = ex.retain_graph
            self.create_box.value = ex.create_graph
        self._pending_output = ex.output

    def _show(self, snap):
        snap = snap.to_dict() if hasattr(snap, "to_dict") else snap
        self.snapshot = snap
        with self._silenced():
            if snap.get("code") is not None and snap["code"] != self._editor_text():
                self._set_code(snap["code"])
            if self._embedded:
                self._fit_editor()
            self.editor.annotations = panels.editor_annotations(snap)
            outputs = snap.get("outputs") or []
            want = getattr(self, "_pending_output", None) or self.output_select.value
            self.output_select.options = outputs
            self.output_select.value = want if want in outputs else snap.get("default_output")
            self._pending_output = None
            self.snapshot = snap = graph_mod.with_output(snap, self.output_select.value)
            rows = [r for r in snap.get("inspector") or [] if r.get("toggleable")]
            self.toggles.options = [r["name"] for r in rows]
            self.toggles.value = [r["name"] for r in rows if r.get("requires_grad")]
            step = self._set_steps(snap.get("walk"))
            self._set_modules(snap.get("graph") or {})
        # The graph last: a widget shown or hidden after it lays the page out, and so paints the
        # graph, while Bokeh is still taking in the new data (its labels then overrun their colours).
        self._render_text()
        self._draw(step)
        self._sync_link()

    def _draw(self, step):
        # The figure is a plain Bokeh model: changes from a widget callback must go through
        # Panel's unlocked() under panel serve (a no-op in the browser and at build time).
        with pn.io.unlocked():
            self.graph.update(self.snapshot.get("graph") or {}, self.snapshot.get("walk"), step, self._modules)

    def _set_modules(self, graph):
        """Offer module boxes when the code called modules; a big graph starts with them."""
        groups = {g["id"] for g in graph.get("groups") or ()}
        self.modules_box.visible = bool(groups)
        if not self._modules_chosen and groups and len(graph.get("nodes") or ()) > AUTO_GROUP:
            self._modules = set()
        if self._modules is not None:
            self._modules &= groups
        self.modules_box.value = self._modules is not None

    def _on_modules_box(self, event):
        if self._quiet:
            return
        self._modules_chosen = True
        self._modules = set() if event.new else None
        self._redraw()

    def _on_output(self, event):
        """The output picked is the one drawn as the output, before any Backward too."""
        if self._quiet:
            return
        self.snapshot = graph_mod.with_output(self.snapshot, event.new)
        self.inspector_pane.object = panels.inspector_html(self.snapshot, self.language)
        self._redraw()

    def _redraw(self):
        self._draw(self.step_player.value if self.step_player.visible else None)
        self._sync_link()

    def _on_frame_tap(self, attr, old, new):
        """A tapped title tab closes its module call again (and the calls inside it)."""
        ids = self.graph.frames.data.get("index") or []
        if not new or new[0] >= len(ids) or self._modules is None:
            return
        self._modules = closing(self.snapshot.get("graph") or {}, self._modules, ids[new[0]])
        self._redraw()

    def _set_steps(self, walk):
        """Offer the last backward's steps (at the last one, or at a shared link's); the step to draw."""
        steps = (walk or {}).get("steps") or []
        want, self._pending_step = getattr(self, "_pending_step", None), None
        self.step_player.visible = bool(steps)
        self.step_pane.visible = bool(steps) or bool((walk or {}).get("too_big"))
        if not steps:
            return None
        self.step_player.end = len(steps)
        self.step_player.value = want if want is not None and 0 <= want <= len(steps) else len(steps)
        return self.step_player.value

    def _on_tap(self, attr, old, new):
        """A tapped node: the graph fades all but the paths through it, and the backward steps (if
        shown) jump to the one that ran it. A tap on the background shows everything again."""
        ids = self.graph.nodes.data.get("index") or []
        node = ids[new[0]] if new and new[0] < len(ids) else None
        if node is None and self.graph.focused is None:
            return  # (a selection cleared with the data: nothing to redraw)
        if node is not None and node.startswith(BOX) and self._modules is not None:
            self._modules.add(node[len(BOX):])  # a module box opens
            self._redraw()
            return
        walk = (self.snapshot.get("walk") or {}) if self.step_player.visible else {}
        k = next((i + 1 for i, s in enumerate(walk.get("steps") or ()) if s["node"] == node), None)
        if k is None and node in (walk.get("ready") or {}):  # a tensor: the step that gave it its grad
            k = walk["ready"][node] + 1
        with pn.io.unlocked():
            self.graph.focus(node)
        if k is not None:
            self.step_player.value = k

    def _on_step(self):
        if self._quiet:
            return
        with pn.io.unlocked():
            self.graph.show_step(self.snapshot.get("walk"), self.step_player.value)
        self.step_pane.object = panels.step_html(self.snapshot, self.step_player.value, self.language)
        self._sync_link()

    def _resend_exercise_visibility(self):
        # Under panel serve, hiding the question while the page's first hash event is handled
        # changed the model on the server but never reached the page (the default example's
        # question stayed beside the link's example). Set again from a tick of its own, it does.
        shown = self.exercise_box.visible
        with pn.io.unlocked():
            for model, _ in self.exercise_box._models.values():
                model.visible = not shown
                model.visible = shown

    def _render_text(self):
        snap, lang = self.snapshot, self.language
        ex = examples.get_example(self.example) if self.example else None
        relation = examples.relation(ex, snap.get("code")) if ex is not None else "same"
        self.explain_pane.object = panels.explanation_html(ex, lang, relation)
        self.restore_button.visible = relation != "same"
        self.exercise_box.visible = ex is not None and ex.exercise is not None and relation != "apart"
        if self.exercise_box.visible:
            self.exercise_pane.object = panels.exercise_html(ex.exercise, lang)
            self.verdict_pane.object = panels.verdict_html(self._verdict[lang] if self._verdict else None)
        self.output_pane.object = panels.output_html(snap, lang)
        self.inspector_pane.object = panels.inspector_html(snap, lang)
        self.history_pane.object = panels.history_html(snap, lang)
        self.gradcheck_pane.object = panels.gradcheck_html(snap.get("gradcheck"), lang)
        self.step_pane.object = panels.step_html(snap, self.step_player.value, lang)
        self.status.object = f'<span class="ap-status">{escape(panels.status_text(snap, lang))}</span>'

    def _label_widgets(self):
        """Buttons, titles and tabs in the chosen language (PyTorch's own names stay as they are)."""
        words = UI[self.language]["labels"]
        self.run_button.param.update(label=words["run"], description=words["run_tip"])
        # (at the page's right edge, where a tip to the right would be cut off)
        self.copy_button.param.update(label=words["copy"], description=_tip(words["copy_tip"], "bottom"))
        self.embed_button.param.update(label=words["embed"], description=_tip(words["embed_tip"], "bottom"))
        self.zero_button.label, self.check_button.label = words["zero"], words["check"]
        label, tip = UI[self.language]["restore"]
        self.restore_button.param.update(label=label, description=tip)
        self.step_player.label, self.output_select.label = words["steps"], words["output"]
        self.title_pane.object = self._title()
        self.keys_pane.object = f'<span class="ap-status">{escape(words["keys"])}</span>'
        self.graph_title.object = f'<div class="ap-section">{escape(words["graph"])}</div>'
        self.tabs[0] = (words["tensors"], self.inspector_pane)
        self.tabs[1] = (words["history"], self.history_pane)
        self.tabs[2] = (words["gradcheck"], self.gradcheck_box)
        self.check_grads_button.param.update(label=words["check_grads"], description=words["check_grads_tip"])
        self._label_wide()

    def _on_language(self):
        with self._silenced():
            self._label_widgets()
            self.example_select.options = self._example_options()
            self.modules_box.label = UI[self.language]["modules"]
            self.step_player.stylesheets = [player_css(UI[self.language]["player"])]
            self.answer_input.placeholder = UI[self.language]["answer"]
            self.check_button.description = UI[self.language]["check"]
        self.embed_note.object = panels.banner_html(UI[self.language]["embed"], "note")
        self.legend.object = _legend(self.language)
        with pn.io.unlocked():
            self.graph.set_language(self.language)
        self._render_text()
        self._sync_link()

    def _message(self, text, kind="warn"):
        self.banner.object = panels.banner_html(text, kind)
        self.banner.visible = True

    def _example_options(self):
        """The examples by title; first, while the code is no example's, an entry standing for it."""
        own = {UI[self.language]["own_code"]: ""} if self.example is None else {}
        return {**own, **{e.title(self.language): e.key for e in examples.EXAMPLES}}

    def link_state(self):
        snap = self.snapshot
        replay = snap.get("replay") or {}
        return {
            "code": self.editor.value or "",
            "output": self.output_select.value,
            "gradient": self.gradient_input.value or None,
            "retain_graph": bool(self.retain_box.value),
            "create_graph": bool(self.create_box.value),
            "example": self.example,
            "language": self.language,
            "actions": [] if snap.get("stale") else list(replay.get("actions") or []),
            "step": self._shared_step(),
            "modules": (sorted(self._modules, key=lambda g: int(g[1:])) if self._modules is not None
                        else False if self._modules_chosen else None),
            "check": ({"output": check["output"], "gradient": check["gradient"]}
                      if (check := snap.get("gradcheck")) and not snap.get("stale") else None),
            "wide": self._wide,
        }

    def _shared_step(self):
        """The backward step in view, when it is not the last (the default)."""
        steps = (self.snapshot.get("walk") or {}).get("steps") or []
        value = self.step_player.value
        return value if steps and not self.snapshot.get("stale") and value < len(steps) else None

    def _sync_link(self):
        if self._quiet or pn.state.location is None:
            return
        try:
            text = links.encode(self.link_state())
        except links.LinkError as exc:
            self._message(str(exc))
            return
        if text != self._last_hash:
            self._last_hash = text
            pn.state.location.hash = "#" + text
        self.show_page_links(self._page(), text)

    def show_page_links(self, page, text):
        """The embed code and the compact view's link to the full playground, for the state ``text``."""
        if page is None:
            return
        self.embed_code.value = links.embed_html(page, text)
        self.open_pane.object = (f'<a class="ap-open" href="{escape(page)}#{escape(text)}" target="_blank" '
                                 f'rel="noopener">{escape(UI[self.language]["open"])}</a>')

    def _silenced(self):
        app = self

        class _Quiet:
            def __enter__(self):
                self.prev, app._quiet = app._quiet, True

            def __exit__(self, *exc):
                app._quiet = self.prev

        return _Quiet()

    # ----- layout -----
    def _build_layout(self):
        # Rows that wrap: in a narrow window or a course page's frame the columns stack and the
        # controls flow onto new lines instead of leaving the page.
        tools = _wrapping(self.example_select, self.language_toggle, self.copy_button, self.embed_button,
                          self.open_pane, sizing_mode=None, align_items="center", margin_left="auto",
                          max_width="100%")
        self.keys_pane = pn.pane.HTML()
        self.graph_title = pn.pane.HTML()
        self.gradcheck_box = pn.Column(self.check_grads_button, self.gradcheck_pane, sizing_mode="stretch_width")
        self.tabs = pn.Tabs(("Tensors", self.inspector_pane), ("Gradient history", self.history_pane),
                            ("Gradient check", self.gradcheck_box), sizing_mode="stretch_width",
                            margin=(10, 10, 5, 10))
        self._label_widgets()
        header = _wrapping(self.title_pane, tools, css_classes=["ap-header"], justify_content="space-between",
                           align_items="center", padding="8px 16px")
        self._left = left = pn.Column(
            self.explain_pane,
            self.editor,
            pn.Row(self.run_button, self.keys_pane, self.restore_button),
            self.exercise_box,
            self.output_pane,
            sizing_mode="stretch_width", styles=_COLUMN_STYLES[False][0],
        )
        controls = _wrapping(self.output_select, self.gradient_input,
                             pn.Column(self.retain_box, self.create_box, margin=(18, 5, 0, 5)),
                             pn.Column(self.backward_button, self.zero_button, margin=(12, 5, 0, 5)))
        self._right = right = pn.Column(
            pn.Row(self.graph_title, pn.layout.HSpacer(), self.status, self.wide_button,
                   sizing_mode="stretch_width", stylesheets=[_NARROW_CSS]),
            self.graph_pane,
            self.legend,
            self.modules_box,
            _wrapping(self.step_player, self.step_pane),
            controls,
            pn.Row(pn.pane.HTML('<div class="ap-section">requires_grad</div>'), self.toggles),
            sizing_mode="stretch_width", styles=_COLUMN_STYLES[False][1],
        )
        body = _wrapping(left, right)
        # The tabs span both columns: the tensor table's six columns need the width, and the space
        # under the editor would otherwise stay empty.
        return pn.Column(header, self.banner, self.embed_box, body, self.tabs, sizing_mode="stretch_width",
                         styles={"min-width": "0"})

    def __panel__(self):
        return self._layout


def first_view_html():
    """The static first view build.py inlines: the default example's code and graph as plain
    HTML + SVG, painted before any script has loaded."""
    from playground.model.session import InProcessSession
    from playground.views.sketch import sketch_html

    ex = examples.default_example()
    return sketch_html(InProcessSession().run(ex.code).to_dict(), ex.title("en"), ex.explain("en"))


def create_app(**kwargs):
    pn.extension("codeeditor", raw_css=[CSS], notifications=False)
    return Playground(**kwargs)


if pn.state.curdoc is not None or IN_BROWSER:
    from playground import quick

    create_app(**quick.handoff()).servable(title="Autograd Playground")
