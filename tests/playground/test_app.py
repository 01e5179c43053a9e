"""The app object without a browser: widgets set and clicked as a person would, sources read back."""
import pytest
from needs import require

pn = require("panel", "pip install -e '.[test]'")

from playground.app import Playground  # noqa: E402
from playground.model import examples, links  # noqa: E402
from playground.model.session import InProcessSession  # noqa: E402


@pytest.fixture
def app(torch_module):
    return Playground(session=InProcessSession(torch_module, time_limit=2.0))


def _node(app, label):
    data = app.graph.nodes.data
    i = data["label"].index(label)
    return {k: v[i] for k, v in data.items()}


def test_starts_with_the_default_example(app):
    assert app.editor.value == examples.default_example().code
    labels = app.graph.nodes.data["label"]
    assert labels[:4] == ["x", "y", "z", "out"]
    assert {"AddBackward0", "MulBackward0", "MeanBackward0", "AccumulateGrad"} <= set(labels)
    assert _node(app, "x")["grad"] == "not computed yet"
    assert app.output_select.value == "out"
    assert app.toggles.options == ["x"] and app.toggles.value == ["x"]
    assert app.graph.nodes.name == "graph_nodes" and app.graph.edges.name == "graph_edges"
    assert len(app.graph.edges.data["start"]) == 9
    # Hovering a grad_fn node explains its backward rule.
    assert _node(app, "MulBackward0")["value"] == ("backward: grad_a = grad * b,  grad_b = grad * a  (saves both inputs)"
                                                   "\nsaved for backward: other, self")  # its grad_fn._saved_*
    assert _node(app, "AccumulateGrad")["value"].startswith("backward: adds the incoming gradient into the leaf's .grad")


def test_backward_accumulates_and_zero_grad(app):
    app.run("import torch\nx = torch.ones(2, 2, requires_grad=True)\nout = (x * x * 2).sum()\n")
    app.retain_box.value = True
    app.backward_button.clicks += 1
    assert _node(app, "x")["grad"] == "tensor([[4., 4.],\n        [4., 4.]])"
    app.backward_button.clicks += 1
    assert _node(app, "x")["grad"] == "tensor([[8., 8.],\n        [8., 8.]])"
    assert _node(app, "x")["grad_short"].startswith("∇ [[8., 8.]")
    app.zero_button.clicks += 1
    assert _node(app, "x")["grad"] == "tensor([[0., 0.],\n        [0., 0.]])"
    assert "backward #2" in app.history_pane.object and "zero_grad" in app.history_pane.object


def test_the_tensor_table_shows_grad_next_to_the_value_and_why_it_is_none(app):
    import re
    headers = lambda: [re.sub("<wbr>", "", h) for h in re.findall(r"<th>(.*?)</th>", app.inspector_pane.object)]
    rows = lambda: {m[0]: m[1] for m in re.findall(r"<tr><td><b>(\w+)</b>.*?</td><td>.*?</td>(<td.*?</td>)",
                                                     app.inspector_pane.object, re.S)}
    assert headers() == ["name", "value", ".grad", "grad_fn", "requires_grad", "is_leaf"]
    assert '<b>x</b> <span class="ap-badge" style="background:#2563eb">leaf</span><div class="ap-cellsub">2×2 · float32' \
        in app.inspector_pane.object
    assert rows()["x"] == ('<td class="ap-muted"><pre class="ap-cellpre">None</pre>'
                           '<div class="ap-cellnote">no backward has reached it yet</div></td>')
    app.backward_button.clicks += 1
    grads = rows()
    assert grads["x"] == ('<td class="ap-grad"><pre class="ap-cellpre">tensor([[4.5000, 4.5000],\n'
                          '        [4.5000, 4.5000]])</pre></td>')
    assert "not a leaf: call .retain_grad() before backward to keep it" in grads["y"]
    app.language_toggle.value = "zh"
    assert "不是叶子张量" in rows()["y"] and "backward #1" in app.history_pane.object
    app.run("import torch\nx = torch.ones(2, requires_grad=True)\n")
    assert "按 Backward：每次调用后各叶子张量的 .grad 都列在这里" in app.history_pane.object


def test_the_zoom_stays_for_the_same_graph_and_a_new_graph_is_framed_afresh(app):
    xr = app.graph.figure.x_range
    xr.update(start=xr.start + 1.5, end=xr.end + 1.5)  # the user pans
    panned = (xr.start, xr.end)
    app.backward_button.clicks += 1
    app.step_player.value = 1
    app.run(app.editor.value)
    assert (xr.start, xr.end) == panned
    app.run("import torch\nx = torch.ones(3, requires_grad=True)\ny = (x * 2).sum()\n")
    x0, x1, y0, y1, ox, oy = app.graph.figure.tags
    assert xr.start <= x0 < x1 <= xr.end and (xr.start, xr.end) != panned


def test_the_graph_can_take_the_whole_width_and_the_link_keeps_it(app, torch_module):
    code, graph = app._left, app._right
    tall = ("import torch\nws = [torch.ones(2, requires_grad=True) for _ in range(14)]\n"
            "loss = sum((w * (i + 1)).sum() for i, w in enumerate(ws))\n")
    assert app.graph.figure.height == 460 and app.wide_button.label == "⤢ Enlarge graph"
    assert code.styles["flex"] == "2 1 360px" and graph.styles["flex"] == "3 1 540px" and "order" not in graph.styles
    assert app.wide_button in graph[0]  # on the graph's title row
    app.wide_button.clicks += 1
    # the graph a row of its own, first; the code a row of its own under it
    assert graph.styles == {"flex": "1 1 100%", "min-width": "0", "order": "-1"}
    assert code.styles == {"flex": "1 1 100%", "min-width": "0"}
    assert app.wide_button.label == "⤡ Side by side" and app.link_state()["wide"] is True
    assert app.wide_button.css_classes == ["ap-wide", "ap-on"]  # (kept on a narrow page: the way back)
    assert app.graph.figure.height == 460  # the default example's 9 nodes need no more
    app.run(tall)
    x0, x1, y0, y1 = app.graph.figure.tags[:4]
    assert y1 - y0 > 17  # 14 leaves in a column: as high as it needs when 1300 px show the whole width
    assert app.graph.figure.height == app.graph.height == round((y1 - y0) * 1300 / (x1 - x0)) + 40 == 562
    app.language = "zh"
    assert app.wide_button.label == "⤡ 并排显示" and app.wide_button.description.content == "计算图回到代码旁边"
    # the header's tips too, under their buttons at the page's right edge
    assert (app.copy_button.description.content, app.copy_button.description.position) == (
        "复制一个链接，打开它会恢复完全相同的状态", "bottom")
    other = Playground(session=InProcessSession(torch_module, time_limit=2.0))
    other.restore(links.decode(links.encode(app.link_state())))
    assert other.graph.figure.height == 562 and other._right.styles["order"] == "-1"
    assert other.wide_button.label == "⤡ 并排显示"
    app.run("import torch\nx = torch.ones(2, requires_grad=True)\n" + "x = x * 2\n" * 160)
    assert app.graph.figure.height == 680  # at most
    app.wide_button.clicks += 1
    assert app.graph.figure.height == 460 and app.link_state()["wide"] is False
    assert graph.styles["flex"] == "3 1 540px" and "order" not in graph.styles and app.wide_button.label == "⤢ 放大计算图"


def test_second_backward_without_retain_graph(app):
    app.backward_button.clicks += 1
    app.backward_button.clicks += 1
    assert "Trying to backward through the graph a second time" in app.output_pane.object
    assert "Tick retain_graph" in app.output_pane.object
    assert _node(app, "x")["grad"].startswith("tensor([[4.5000, 4.5000]")
    assert any(app.graph.nodes.data["freed"])


def test_toggle_edits_the_code(app):
    app.run("import torch\na = torch.ones(2)\nb = torch.ones(2, requires_grad=True)\nc = (a * b).sum()\n")
    assert _node(app, "a")["kind"] == "const"
    app.toggles.value = ["a", "b"]
    assert "a = torch.ones(2, requires_grad=True)" in app.editor.value
    assert _node(app, "a")["kind"] == "leaf"
    app.toggles.value = ["a"]
    assert "b = torch.ones(2, requires_grad=False)" in app.editor.value or "b = torch.ones(2)" in app.editor.value
    assert _node(app, "b")["kind"] == "const"


def test_errors_keep_the_last_good_graph_and_escape_text(app):
    before = list(app.graph.nodes.data["label"])
    app.run("x = (1 +\n")
    assert "SyntaxError (line 1)" in app.output_pane.object
    assert app.editor.annotations and app.editor.annotations[0]["row"] == 0
    assert app.graph.nodes.data["label"] == before
    app.run("print('<b>bold</b>')\n")
    assert "&lt;b&gt;bold&lt;/b&gt;" in app.output_pane.object and "<b>bold</b>" not in app.output_pane.object


def test_link_state_round_trip(app, torch_module):
    app.run("import torch\nw = torch.ones(3, requires_grad=True)\nloss = (w * w).sum()\n")
    app.backward_button.clicks += 1
    state = links.decode(links.encode(app.link_state()))
    assert state["actions"] == [{"op": "backward", "output": "loss", "gradient": None, "retain_graph": False,
                                 "create_graph": False}]
    other = Playground(session=InProcessSession(torch_module, time_limit=2.0))
    other.restore(state)
    assert other.editor.value == app.editor.value
    assert _node(other, "w")["grad"] == "tensor([2., 2., 2.])"


def test_embed_code_and_the_compact_view(app, torch_module):
    app.run("import torch\nw = torch.ones(3, requires_grad=True)\nloss = (w * w).sum()\n")
    app.backward_button.clicks += 1
    text = links.encode(app.link_state())
    app.show_page_links("https://example.org/pg/", text)
    assert app.embed_code.value == links.embed_html("https://example.org/pg/", text)
    assert not app.embed_box.visible
    app.embed_button.clicks += 1
    assert app.embed_box.visible and "Paste it into a course page" in app.embed_note.object
    app.language_toggle.value = "zh"
    assert "嵌入代码已复制" in app.embed_note.object
    app.embed_button.clicks += 1
    assert not app.embed_box.visible

    # The page the code shows (a course page's frame): compact, with a way out to the full playground.
    frame = Playground(session=InProcessSession(torch_module, time_limit=2.0))
    frame.restore(links.decode(app.embed_code.value.split("#", 1)[1].split('"', 1)[0]))
    assert _node(frame, "w")["grad"] == "tensor([2., 2., 2.])"
    assert frame.editor.height == 300 and "see PyTorch" in frame.title_pane.object
    frame.set_embedded(True)
    assert "see PyTorch" not in frame.title_pane.object and "∂ Autograd Playground" in frame.title_pane.object
    assert not frame.copy_button.visible and not frame.embed_button.visible and frame.open_pane.visible
    assert frame.editor.height == 120  # four short lines: the least height, not 300 px
    frame.show_page_links("https://example.org/pg/", text)
    assert f'href="https://example.org/pg/#{text}" target="_blank"' in frame.open_pane.object
    assert "Open in a new tab" in frame.open_pane.object
    frame.run("\n".join(f"a{i} = {i}" for i in range(10)))
    assert frame.editor.height == 14 * 10 + 24
    frame.run("\n".join(f"a{i} = {i}" for i in range(40)))
    assert frame.editor.height == 300  # a long program scrolls in the editor
    frame.set_embedded(False)
    assert frame.copy_button.visible and not frame.open_pane.visible and "see PyTorch" in frame.title_pane.object


def test_examples_all_load_and_backward(app):
    for ex in examples.EXAMPLES:
        app.example_select.value = ex.key
        assert app.editor.value == ex.code, ex.key
        assert app.snapshot["ok"], (ex.key, app.snapshot["error"])
        app.backward_button.clicks += 1
        assert app.snapshot["ok"], (ex.key, app.snapshot["error"])
        assert app.snapshot["backward_count"] >= 1, ex.key


def test_language_switch_shows_chinese_explanation(app):
    app.language_toggle.value = "zh"
    assert examples.default_example().explain("zh")[:10] in app.explain_pane.object
    assert "第一个计算图" in app.example_select.options
    assert "叶子张量（requires grad）" in app.legend.object and "leaf tensor" not in app.legend.object
    assert (app.run_button.label, app.zero_button.label, app.copy_button.label) == ("运行", "梯度清零", "复制链接")
    assert app.tabs._names == ["张量", "梯度历史", "梯度检验"] and "计算图" in app.graph_title.object
    assert "<small>看 PyTorch 的自动求导如何工作</small>" in app.title_pane.object and app.output_select.label == "输出"
    assert app.backward_button.label == "Backward" and app.retain_box.label == "retain_graph"  # PyTorch's names
    assert _node(app, "x")["kind_name"] == "叶子张量（requires grad）"
    app.backward_button.clicks += 1
    assert _node(app, "x")["grad_title"] == ".grad" and _node(app, "MulBackward0")["kind_name"].endswith("（已释放：保存的张量已清除）")
    assert _node(app, "MulBackward0")["caption"] == "MulBackward0\n（已释放）"
    assert '<b>y</b> <span class="ap-badge" style="background:#6b7280">非叶子</span>' in app.inspector_pane.object
    assert _node(app, "MulBackward0")["value"] == ("反向：grad_a = grad * b,  grad_b = grad * a  （保存两个输入）"
                                                   "\n为反向保存：other, self")
    app.language_toggle.value = "en"
    assert _node(app, "MulBackward0")["kind_name"] == "grad_fn node (freed: saved tensors released)"
    app.step_player.value = 1
    assert "grad_x = grad / N copied to every element" in app.step_pane.object  # MeanBackward0, the first step
    app.language_toggle.value = "zh"
    assert "grad_x = grad / N 复制到每个元素" in app.step_pane.object
    app.language_toggle.value = "en"
    assert app.tabs._names == ["Tensors", "Gradient history", "Gradient check"] and app.run_button.label == "Run"
    assert "tensor without grad" in app.legend.object
    assert "<small>see PyTorch&#x27;s autograd work</small>" in app.title_pane.object
    assert app.output_select.label == "output"


def test_the_step_players_buttons_say_what_they_do_in_the_chosen_language(app):
    def tip(name):
        css = "\n".join(app.step_player.stylesheets)
        return css.split(f"button.{name}:hover::after {{ content: \"")[1].split('"')[0]

    assert [tip(b) for b in ("first", "previous", "play", "pause", "next", "last")] == [
        "before the first step (Home)", "previous step (←)", "play the steps", "pause", "next step (→)",
        "the last step (End)"]
    app.language_toggle.value = "zh"
    assert [tip(b) for b in ("first", "previous", "next", "last")] == [
        "回到第一步之前（Home）", "上一步（←）", "下一步（→）", "最后一步（End）"]


def test_carries_on_from_the_quick_start(torch_module):
    """The static site's sketch hands its session and state over (playground.quick)."""
    from playground import quick

    started = quick.QuickStart(session=InProcessSession(torch_module, time_limit=2.0))
    code = "import torch\nw = torch.ones(3, requires_grad=True)\nloss = (w * w).sum()\n"
    started.command("backward", code)
    app = Playground(**started.handoff(), language="en")
    assert app.session is started.session
    assert app.editor.value == code and app.output_select.value == "loss"
    assert _node(app, "w")["grad"] == "tensor([2., 2., 2.])"
    assert app.snapshot["backward_count"] == 1
    assert app.link_state()["actions"] == [{"op": "backward", "output": "loss", "gradient": None,
                                            "retain_graph": False, "create_graph": False}]
    # The address bar already shows this state: the app neither reopens it nor changes it.
    assert app._restored == started.link() == links.encode(app.link_state())
    assert not app.banner.visible


def test_quick_start_notice_reaches_the_app(torch_module):
    from playground import quick

    started = quick.QuickStart("#v1.broken", session=InProcessSession(torch_module, time_limit=2.0))
    app = Playground(**started.handoff())
    assert app.banner.visible and "This link is damaged" in app.banner.object
    assert app.editor.value == examples.default_example().code


def test_double_backward_graph_shows_pytorchs_nodes_and_their_rules(app):
    app.example_select.value = "higher_order"
    assert app.output_select.value == "dy_dx"
    labels = app.graph.nodes.data["label"]
    # dy/dx = grad * (3 * x.pow(2)), written as PyTorch's pow_backward writes it.
    assert {"MulBackward0", "MulBackward1", "PowBackward0", "AccumulateGrad"} <= set(labels)
    assert _node(app, "MulBackward1")["value"] == (
        "backward: grad_x = grad * c  (x times a number c, as inside a derivative formula)\n"
        "saved for backward: other")  # (c = 3.0: PyTorch's _saved_other)
    app.run("import torch\nx = torch.tensor([0.5, -1.0], requires_grad=True)\ny = x.sigmoid()\n"
            "g, = torch.autograd.grad(y.sum(), x, create_graph=True)\n")
    app.output_select.value = "g"
    labels = app.graph.nodes.data["label"]
    assert {"SigmoidBackwardBackward0", "SigmoidBackward0"} <= set(labels)
    assert _node(app, "SigmoidBackwardBackward0")["value"].startswith("backward: node of g * s * (1 - s)")


def test_an_exercise_is_answered_before_backward_and_checked_on_a_fresh_run(app):
    assert app.exercise_box.visible and "what will y.grad be after it?" in app.exercise_pane.object
    assert app.snapshot["backward_count"] == 0
    app.answer_input.value_input = "4.5"
    app.check_button.clicks += 1
    # the check ran the code afresh with the question's Backward: the graph shows it
    assert app.snapshot["backward_count"] == 1 and app.step_player.visible
    assert links.decode(links.encode(app.link_state()))["actions"] == [  # a share link replays it
        {"op": "backward", "output": "out", "gradient": None, "retain_graph": False, "create_graph": False}]
    assert app.verdict_pane.object.startswith('<div class="ap-verdict ap-wrong">✗ Not quite: y.grad = None — y is not a leaf')
    app.answer_input.value_input = "None"
    app.answer_input.param.trigger("enter_pressed")
    assert app.verdict_pane.object == '<div class="ap-verdict ap-right">✓ Right: y.grad = None</div>'
    assert app.snapshot["backward_count"] == 1  # afresh again, not a second Backward on top
    app.language_toggle.value = "zh"
    assert "✓ 正确：y.grad = None" in app.verdict_pane.object and "动手试试" in app.exercise_pane.object
    assert app.answer_input.placeholder == "你的答案：一个数、一个列表，或 None"


def test_an_exercise_that_needs_setting_up_says_so_first(app):
    app.load_example("higher_order")
    assert app.verdict_pane.object == "" and app.answer_input.value_input == ""
    app.answer_input.value_input = "12"
    app.check_button.clicks += 1
    assert app.snapshot["backward_count"] == 0  # nothing ran: the code is not set up yet
    assert "First change x to torch.tensor(2.0, requires_grad=True) and press Run." in app.verdict_pane.object
    app.editor.value_input = app.editor.value.replace("torch.tensor(3.0", "torch.tensor(2.0")
    app.check_button.clicks += 1  # (the edited code runs first)
    assert app.verdict_pane.object == '<div class="ap-verdict ap-right">✓ Right: x.grad = 12.</div>'
    app.load_example("leaf")  # no question on this one
    assert not app.exercise_box.visible


def test_edited_code_keeps_the_text_it_still_matches_and_can_be_restored(app, torch_module):
    ex = examples.default_example()
    assert not app.restore_button.visible and "ap-tag" not in app.explain_pane.object
    app.run(ex.code + "out.backward()\n")  # what the text talks about is all still there
    assert app.explain_pane.object.startswith(
        '<div class="ap-explain"><div class="ap-explain-title">A first graph <span class="ap-tag">edited</span></div>')
    assert app.restore_button.visible and app.exercise_box.visible
    # Other code: the example's text and question would be misread beside it.
    app.run("import torch\nw = torch.ones(3, requires_grad=True)\nloss = (w * w).sum()\n")
    assert app.explain_pane.object.startswith(
        '<div class="ap-explain"><div class="ap-explain-title">Your own code</div><details><summary>What «A first '
        'graph» explains (its code had other variables)</summary><p>x is a leaf')
    assert not app.exercise_box.visible and app.restore_button.visible
    assert app.example_select.value == "basics"
    # A link reopens it so.
    other = Playground(session=InProcessSession(torch_module, time_limit=2.0))
    other.restore(links.decode(links.encode(app.link_state())))
    assert other.explain_pane.object == app.explain_pane.object and not other.exercise_box.visible
    app.language_toggle.value = "zh"
    assert "你自己的代码" in app.explain_pane.object and app.restore_button.label == "恢复示例"
    app.restore_button.clicks += 1
    assert app.editor.value == ex.code and app.snapshot["code"] == ex.code
    assert not app.restore_button.visible and app.exercise_box.visible
    assert app.explain_pane.object.startswith('<div class="ap-explain"><div class="ap-explain-title">第一个计算图</div>')


def test_a_link_with_code_of_its_own_shows_no_examples_text(app, torch_module):
    code = "import torch\nw = torch.tensor([1.0, 2.0], requires_grad=True)\nloss = (w ** 3).sum()\n"
    state = links.decode(links.encode({"code": code, "output": "loss", "example": None, "language": "zh",
                                       "actions": [{"op": "backward", "output": "loss"}]}))
    other = Playground(session=InProcessSession(torch_module, time_limit=2.0))
    other.answer_input.value_input = "4.5"
    other.restore(state)
    assert other.explain_pane.object == "" and not other.exercise_box.visible
    assert other.answer_input.value_input == ""
    assert other.example_select.value == "" and list(other.example_select.options)[:2] == ["你自己的代码", "第一个计算图"]
    assert _node(other, "w")["grad"] == "tensor([ 3., 12.])"
    assert links.decode(links.encode(other.link_state()))["example"] is None  # a link of it says the same
    other.language_toggle.value = "en"
    assert list(other.example_select.options)[0] == "Your own code"
    # Choosing an example from the list loads it; the entry for the link's code goes.
    other.example_select.value = "basics"
    assert other.editor.value == examples.default_example().code and other.exercise_box.visible
    assert "Your own code" not in other.example_select.options
    assert "x is a leaf" in other.explain_pane.object
    # A link naming an example keeps its text beside the (edited) code, as the sender saw it.
    state = links.decode(links.encode({"code": code, "output": "loss", "example": "leaf"}))
    other.restore(state)
    assert other.example_select.value == "leaf" and other.example == "leaf"
    assert examples.get_example("leaf").explain("en")[:20] in other.explain_pane.object


def test_the_gradient_check_tab_and_its_link(app, torch_module):
    assert "Is autograd right?" in app.gradcheck_pane.object and app.tabs.active == 0
    app.backward_button.clicks += 1
    app.step_player.value = 2
    app.check_grads_button.clicks += 1
    assert app.tabs.active == 2 and app.step_player.value == 2  # the step in view stays
    html = app.gradcheck_pane.object
    assert "✓ Autograd&#x27;s gradient of out agrees with finite differences at all 4 elements checked." in html
    assert "<td>✓ x[1, 0]</td><td>4.5000</td><td>4.500" in html and "x (2×2, float32): eps = 0.001" in html
    state = links.decode(links.encode(app.link_state()))
    assert state["check"] == {"output": "out", "gradient": None}
    other = Playground(session=InProcessSession(torch_module, time_limit=2.0))
    other.restore(state)
    assert other.tabs.active == 2 and other.gradcheck_pane.object == html and other.step_player.value == 2
    other.language_toggle.value = "zh"
    assert "✓ 在检验的全部 4 个元素上，autograd 对 out 的梯度与有限差分一致。" in other.gradcheck_pane.object
    # A wrong backward: the rows that disagree, and why they may.
    other.run(WRONG_SQUARE)
    assert other.gradcheck_pane.object.startswith('<div class="ap-note">autograd 算得对吗')  # a run clears it
    assert links.decode(links.encode(other.link_state()))["check"] is None
    other.language_toggle.value = "en"
    other.check_grads_button.clicks += 1
    html = other.gradcheck_pane.object
    assert "✗ 1 of the 2 elements checked disagree." in html and "a custom Function&#x27;s backward may be wrong" in html
    assert '<tr class="ap-check-bad"><td>✗ x[1]</td><td>2.0000</td><td>4.0000</td><td>2.0000</td></tr>' in html


WRONG_SQUARE = """import torch
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return x * g  # forgot the 2
x = torch.tensor([0.0, 2.0], dtype=torch.float64, requires_grad=True)
y = Square.apply(x).sum()
"""


def test_a_modules_backward_hook_shows_its_nodes_and_what_it_saw(app):
    app.run("import torch.nn as nn\nm = nn.Linear(3, 2)\n"
            "m.register_full_backward_hook(lambda mod, gi, go: print('grad_output', go))\n"
            "loss = m(torch.ones(1, 3, requires_grad=True)).sum()\n")
    labels = [label for label, kind in zip(app.graph.nodes.data["label"], app.graph.nodes.data["kind"])
              if kind == "function"]
    assert labels.count("BackwardHookFunctionBackward") == 2  # around the input and the output, as in PyTorch
    app.backward()
    assert "grad_output (tensor([[1., 1.]]),)" in app.output_pane.object
    steps = app.snapshot["walk"]["steps"]
    names = {n["id"]: n["label"] for n in app.snapshot["graph"]["nodes"]}
    app.step_player.value = [names[s["node"]] for s in steps].index("BackwardHookFunctionBackward") + 1
    assert "passes the grads on unchanged; here a module&#x27;s backward hooks see them" in app.step_pane.object


def test_the_output_picked_is_drawn_as_the_output_before_any_backward(app):
    # The attention example ends with `fused`; its output is `loss`: the graph's green node and the
    # table's badge follow the output menu, not the last tensor made.
    ex = examples.get_example("attention")
    app.restore(dict(links.DEFAULTS, code=ex.code, example="attention", output="loss"))
    assert app.output_select.value == "loss"
    assert (_node(app, "loss")["kind"], _node(app, "fused")["kind"]) == ("output", "tensor")
    assert '<b>loss</b> <span class="ap-badge" style="background:#16a34a">output</span>' in app.inspector_pane.object
    app.output_select.value = "out"
    assert (_node(app, "out")["kind"], _node(app, "loss")["kind"]) == ("output", "tensor")
    assert '<b>out</b> <span class="ap-badge" style="background:#16a34a">output</span>' in app.inspector_pane.object
    assert app.link_state()["output"] == "out"
    app.run(app.editor.value)  # a re-run keeps the pick
    assert app.output_select.value == "out" and _node(app, "out")["kind"] == "output"
    app.gradient_input.value = "torch.ones(2, 2)"
    app.backward_button.clicks += 1
    assert _node(app, "out")["kind"] == "output" and _node(app, "fused")["kind"] == "tensor"
    assert _node(app, "v")["grad"].startswith("tensor([[0.5989, 0.5989]")


def test_clicking_run_runs_slow_code_once(app, monkeypatch):
    """Clicking Run first blurs the editor, which submits the code; the click that follows is the
    same gesture, however long that first run took."""
    import playground.app as app_mod

    clock, ran, real_run = [1000.0], [], app.session.run

    def slow_run(code):
        ran.append(code)
        clock[0] += 5.0  # the run takes 5 s
        return real_run(code)

    monkeypatch.setattr(app_mod.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(app.session, "run", slow_run)
    code = "import torch\nw = torch.ones(2, requires_grad=True)\n"
    app.editor.value_input = code
    app.editor.value = code  # the blur
    app.run_button.clicks += 1
    assert ran == [code] and app.snapshot["code"] == code
    clock[0] += 2.0
    app.run_button.clicks += 1  # a second click later on is a run of its own
    assert ran == [code, code]
