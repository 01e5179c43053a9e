"""Thin views: each turns a snapshot (plain dicts) into escaped HTML for a Panel pane or the sketch."""
from html import escape

from .rules import rule_text

# ----- output and errors -----

def output_html(snapshot, language="en"):
    """The output pane: printed text, the last expression, or the error with its hint."""
    parts = []
    if snapshot.get("stdout"):
        parts.append(f'<pre class="ap-out">{escape(snapshot["stdout"])}</pre>')
    if snapshot.get("result"):
        parts.append(f'<pre class="ap-out ap-result">{escape(snapshot["result"])}</pre>')
    err = snapshot.get("error")
    if err:
        where = f" (line {err['line']})" if err.get("line") else ""
        head = f"{err.get('type') or 'Error'}{where}: {err.get('message') or ''}"
        body = f'<div class="ap-error"><b>{escape(head)}</b>'
        frames = _frames_only(err.get("traceback") or "")
        if frames:
            body += f'<pre>{escape(frames)}</pre>'
        hint = (err.get("hint") or {}).get(language) or (err.get("hint") or {}).get("en")
        if hint:
            body += f'<div class="ap-hint">{escape(hint)}</div>'
        body += "</div>"
        parts.append(body)
        if snapshot.get("stale"):
            note = {"en": "The graph shows your last successful run.", "zh": "计算图显示的是上一次成功运行的结果。"}
            parts.append(f'<div class="ap-note">{escape(note.get(language, note["en"]))}</div>')
    if not parts:
        empty = {"en": "Nothing printed.", "zh": "没有输出。"}
        parts.append(f'<div class="ap-note">{escape(empty.get(language, empty["en"]))}</div>')
    return "".join(parts)


def _frames_only(traceback):
    """The traceback without its last "Type: message" lines, which the header already shows."""
    lines = traceback.rstrip().splitlines()
    while lines and not lines[-1].startswith(" ") and not lines[-1].startswith("Traceback"):
        lines.pop()
    return "\n".join(lines) if len(lines) > 1 else ""


def editor_annotations(snapshot):
    err = snapshot.get("error")
    if err and err.get("line") and err.get("kind") in ("syntax", "exception", "timeout"):
        return [{"row": err["line"] - 1, "column": max((err.get("column") or 1) - 1, 0),
                 "text": f"{err.get('type')}: {err.get('message')}", "type": "error"}]
    return []


# ----- inspector and gradient history -----

_KIND_BADGE = {
    "leaf": ("leaf", "#2563eb"), "tensor": ("non-leaf", "#6b7280"), "output": ("output", "#16a34a"),
    "const": ("no grad", "#94a3b8"), "detached": ("detached", "#f97316"),
}
_BADGE_ZH = {"leaf": "叶子", "tensor": "非叶子", "output": "输出", "const": "无梯度", "detached": "已 detach"}


def _cell(text, cls=""):
    return f'<td class="{cls}">{escape(str(text))}</td>'


# What PyTorch gives for .grad there (None), and why, in words that wrap under it.
_GRAD_WHY = {
    "en": {"not_computed": "no backward has reached it yet",
           "not_retained": "not a leaf: call .retain_grad() before backward to keep it",
           "none": "requires_grad is False"},
    "zh": {"not_computed": "还没有 backward 传到这里",
           "not_retained": "不是叶子张量：要保留它，在 backward 之前调用 .retain_grad()",
           "none": "requires_grad 为 False"},
}
# .grad next to the value, where it is seen without scrolling; the attributes after them (shape
# and dtype under the name, so the table fits a laptop's half screen).
_COLUMNS = ("name", "value", ".grad", "grad_fn", "requires_grad", "is_leaf")


def _grad_cell(row, language):
    state = row.get("grad_state")
    if state == "computed":
        return f'<td class="ap-grad"><pre class="ap-cellpre">{escape(row.get("grad") or "")}</pre></td>'
    why = _GRAD_WHY.get(language, _GRAD_WHY["en"]).get(state) or row.get("grad") or ""
    return f'<td class="ap-muted"><pre class="ap-cellpre">None</pre><div class="ap-cellnote">{escape(why)}</div></td>'


def inspector_html(snapshot, language="en"):
    rows = snapshot.get("inspector") or []
    if not rows:
        empty = {"en": "No tensors yet: run some code.", "zh": "还没有张量：先运行代码。"}
        return f'<div class="ap-note">{empty.get(language, empty["en"])}</div>'
    # (a header may break after its underscore: the columns of True/False stay narrow)
    head = "".join(f"<th>{h.replace('_', '_<wbr>')}</th>" for h in _COLUMNS)
    body = []
    for r in rows:
        badge, color = _KIND_BADGE.get(r["kind"], (r["kind"], "#6b7280"))
        badge = _BADGE_ZH.get(r["kind"], badge) if language == "zh" else badge
        body.append(
            "<tr>"
            f'<td><b>{escape(r["name"])}</b> <span class="ap-badge" style="background:{color}">{badge}</span>'
            f'<div class="ap-cellsub">{escape(r.get("shape_text") or "")} · '
            f'{escape((r.get("dtype") or "").replace("torch.", ""))}</div></td>'
            f'<td><pre class="ap-cellpre">{escape(r.get("value") or "")}</pre></td>'
            + _grad_cell(r, language)
            + _cell(r.get("grad_fn") or "None")
            + _cell(r.get("requires_grad"))
            + _cell(r.get("is_leaf"))
            + "</tr>"
        )
    return (f'<div class="ap-scroll"><table class="ap-table"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


_HISTORY_EMPTY = {
    "en": "Press Backward: each leaf's .grad after every call appears here, so you can watch gradients accumulate.",
    "zh": "按 Backward：每次调用后各叶子张量的 .grad 都列在这里，可以看到梯度如何累加。",
}


def history_html(snapshot, language="en"):
    hist = snapshot.get("grad_history") or []
    if not hist:
        return f'<div class="ap-note">{escape(_HISTORY_EMPTY.get(language, _HISTORY_EMPTY["en"]))}</div>'
    out = []
    for h in hist:
        items = []
        for e in h["entries"]:
            label = "zero_grad" if e["event"] == "zero_grad" else f"backward #{e['count']}"
            items.append(f'<tr><td class="ap-muted">{escape(label)}</td>'
                         f'<td><pre class="ap-cellpre">{escape(e.get("grad") or "")}</pre></td></tr>')
        out.append(f'<div class="ap-hist"><b>{escape(h["label"])}.grad</b><table class="ap-table">'
                   f'{"".join(items)}</table></div>')
    return "".join(out)


_CHECK = {
    "en": {"intro": "Is autograd right? Check its gradient of the output against finite differences: each "
                    "element of each leaf is nudged by ±eps, the code is run again, and the change in the output "
                    "over the change in the element is set beside autograd's value. The output and gradient are "
                    "Backward's; the tensors on screen are left as they are.",
           "fn": {None: "The function checked: {out}.", "ones": "The function checked: {out}.sum() (Backward's "
                  "gradient is torch.ones_like({out})).", "given": "The function checked: ({out} * gradient).sum(), "
                  "with gradient = {g}."},
           "ok": "✓ Autograd's gradient of {out} agrees with finite differences at all {n} elements checked.",
           "bad": "✗ {k} of the {n} elements checked disagree.",
           "some": "{n} of {total} elements checked, spread over each leaf.",
           "budget": "The re-runs stopped at their time budget: {n} of {total} elements checked.",
           "hint": "Where they disagree, a custom Function's backward may be wrong, or the point is a kink (relu "
                   "or abs at 0, max with a tie), where autograd takes one side and finite differences average both.",
           "head": ("element", "autograd", "finite differences", "difference"),
           "leaf": "{label} ({shape}, {dtype}): eps = {eps:g}, close within {tol}",
           "unused": "{label}: not used by {out} (autograd gives None).",
           "errors": {"run": "The code failed when run again: {msg}", "output": "{msg} has no grad_fn: "
                      "there is nothing to check. Choose an output computed from a leaf that requires grad.",
                      "leaves": "{msg} does not depend on a named leaf that requires grad: there is nothing to check.",
                      "gradient": "The gradient could not be evaluated: {msg}",
                      "autograd": "torch.autograd.grad failed: {msg}"}},
    "zh": {"intro": "autograd 算得对吗？用有限差分来检验它对输出求的梯度：把每个叶子张量的每个元素分别加减 eps，"
                    "重新运行代码，用输出的变化除以元素的变化，与 autograd 的结果并排比较。输出和 gradient 取自 "
                    "Backward 的设置；屏幕上的张量不受影响。",
           "fn": {None: "被检验的函数：{out}。", "ones": "被检验的函数：{out}.sum()（Backward 的 gradient 是 "
                  "torch.ones_like({out})）。", "given": "被检验的函数：({out} * gradient).sum()，其中 gradient = {g}。"},
           "ok": "✓ 在检验的全部 {n} 个元素上，autograd 对 {out} 的梯度与有限差分一致。",
           "bad": "✗ 检验的 {n} 个元素中有 {k} 个不一致。",
           "some": "共 {total} 个元素，检验了其中均匀分布在各叶子张量上的 {n} 个。",
           "budget": "重新运行达到了时间上限：{total} 个元素中检验了 {n} 个。",
           "hint": "不一致的地方，可能是自定义 Function 的 backward 写错了，也可能这一点是个折点（relu 或 abs 在 0 处、"
                   "max 有并列）：autograd 取一侧的导数，有限差分取两侧的平均。",
           "head": ("元素", "autograd", "有限差分", "差"),
           "leaf": "{label}（{shape}，{dtype}）：eps = {eps:g}，容差 {tol}",
           "unused": "{label}：{out} 没有用到它（autograd 给出 None）。",
           "errors": {"run": "重新运行代码时出错：{msg}", "output": "{msg} 没有 grad_fn，没有可检验的梯度。"
                      "请选择一个由需要梯度的叶子张量算出的输出。",
                      "leaves": "{msg} 不依赖任何有名字且需要梯度的叶子张量，没有可检验的梯度。",
                      "gradient": "无法计算 gradient：{msg}",
                      "autograd": "torch.autograd.grad 出错：{msg}"}},
}


def _number(v):
    return f"{v:.4f}" if v == 0 or 1e-4 <= abs(v) < 1e6 else f"{v:.3e}"


def gradcheck_html(check, language="en"):
    """The last gradient check (model.gradcheck), or what the check does before the first."""
    words = _CHECK.get(language, _CHECK["en"])
    if not check:
        return f'<div class="ap-note">{escape(words["intro"])}</div>'
    out = check["output"]
    if check.get("error"):
        err = check["error"]
        text = words["errors"].get(err["kind"], "{msg}").format(msg=err["message"])
        return f'<div class="ap-error">{escape(text)}</div>'
    # (the gradient's text first: a gradient typed as a name "ones" is still a given one)
    fn = words["fn"]["given" if check["gradient"] else check.get("weighed")].format(out=out, g=check["gradient"])
    n, total, bad = check["checked"], check["total"], check["disagree"]
    verdict = (words["ok"].format(out=out, n=n) if not bad else words["bad"].format(k=bad, n=n))
    parts = [f'<div class="ap-verdict {"ap-right" if not bad else "ap-wrong"}">{escape(verdict)}</div>',
             f'<div class="ap-note">{escape(fn)}</div>']
    if check.get("timed_out"):
        parts.append(f'<div class="ap-note">{escape(words["budget"].format(n=n, total=total))}</div>')
    elif n < total:
        parts.append(f'<div class="ap-note">{escape(words["some"].format(n=n, total=total))}</div>')
    if bad:
        parts.append(f'<div class="ap-hint">{escape(words["hint"])}</div>')
    head = "".join(f"<th>{escape(h)}</th>" for h in words["head"])
    for leaf in check["leaves"]:
        if leaf["unused"]:
            parts.append(f'<div class="ap-note">{escape(words["unused"].format(label=leaf["label"], out=out))}</div>')
            continue
        if not leaf["rows"]:
            continue
        title = words["leaf"].format(label=leaf["label"], shape=leaf["shape"], dtype=leaf["dtype"], eps=leaf["eps"],
                                     tol=f"{leaf['rtol'] * 100:g}%")
        rows = []
        for r in leaf["rows"]:
            name = f'{leaf["label"]}{r["index"]}'
            if r["failed"]:
                rows.append(f'<tr class="ap-check-bad"><td>{escape(name)}</td><td>{_number(r["autograd"])}</td>'
                            f'<td colspan="2">{escape(r["failed"])}</td></tr>')
                continue
            mark = "✓" if r["ok"] else "✗"
            rows.append(f'<tr class="{"" if r["ok"] else "ap-check-bad"}"><td>{mark} {escape(name)}</td>'
                        f'<td>{_number(r["autograd"])}</td><td>{_number(r["numeric"])}</td>'
                        f'<td>{_number(abs(r["autograd"] - r["numeric"]))}</td></tr>')
        parts.append(f'<div class="ap-hist"><b>{escape(title)}</b><div class="ap-scroll"><table class="ap-table '
                     f'ap-check"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div></div>')
    return "".join(parts)


TAGLINE = {"en": "see PyTorch's autograd work", "zh": "看 PyTorch 的自动求导如何工作"}  # (under the product's name)
OWN_CODE = {"en": "Your own code", "zh": "你自己的代码"}  # (also the examples menu's entry for it)
_EDITED = {"en": "edited", "zh": "已修改"}
_APART = {"en": "What «{}» explains (its code had other variables)", "zh": "示例「{}」的说明（它的代码里的变量与现在不同）"}


def explanation_html(example, language, relation="same"):
    """The example's title and text (``relation``: examples.relation of the code run). Edited code
    gets a tag; code that no longer has the variables the text talks about gets the text folded away."""
    if example is None:
        return ""
    title, text = escape(example.title(language)), escape(example.explain(language))
    if relation == "apart":
        own, about = OWN_CODE.get(language, OWN_CODE["en"]), _APART.get(language, _APART["en"])
        return (f'<div class="ap-explain"><div class="ap-explain-title">{escape(own)}</div>'
                f'<details><summary>{escape(about.format(example.title(language)))}</summary><p>{text}</p>'
                f'</details></div>')
    tag = f' <span class="ap-tag">{_EDITED.get(language, _EDITED["en"])}</span>' if relation == "edited" else ""
    return f'<div class="ap-explain"><div class="ap-explain-title">{title}{tag}</div><p>{text}</p></div>'


_TRY = {"en": "Try it", "zh": "动手试试"}


def exercise_html(exercise, language):
    """The example's question, above the answer box."""
    return (f'<div class="ap-try"><span class="ap-try-title">{_TRY.get(language, _TRY["en"])}</span> '
            f'{escape(exercise.question(language))}</div>')


def verdict_html(verdict):
    """What the check said: right, wrong (with the value and a hint), or what to do first."""
    if not verdict:
        return ""
    return f'<div class="ap-verdict ap-{verdict["status"]}">{escape(verdict["message"])}</div>'


def banner_html(text, kind="warn"):
    """A message above everything: a warning (a broken link, a limit) or a note."""
    return f'<div class="{"ap-banner" if kind == "warn" else "ap-note"}">{escape(text)}</div>'


_STATUS = {"en": "{n} node{ns} · {calls} backward call{cs}", "zh": "{n} 个节点 · {calls} 次 backward"}


def status_text(snapshot, language="en"):
    """The graph's size and how many backward calls made the current grads (the code's own and
    the Backward button's)."""
    n = len((snapshot.get("graph") or {}).get("nodes") or [])
    calls = snapshot.get("backward_count", 0)
    return _STATUS.get(language, _STATUS["en"]).format(n=n, calls=calls, ns="" if n == 1 else "s",
                                                       cs="" if calls == 1 else "s")


# ----- backward, step by step -----

_STEP = {
    "en": {
        "title": "Backward, step {k} of {n}",
        "title_line": "Backward (line {line}), step {k} of {n}",
        "hint": "tap a node to jump to its step",
        "module": "in {module}",
        "start": "Nothing has run yet. Backward starts at the output's node with the grad {text}. "
                 "Press ▶ or ⏭ to run the nodes in autograd's order.",
        "received": "received",
        "summed": "received (the sum of the {m} grads its consumers passed on: the chain rule adds them)",
        "sent": "passed on",
        "to": "to {child}, input {slot}",
        "none": "passes nothing on (no input needs a grad)",
        "leaf": "{leaf}.grad after this step",
        "saved": "saved for backward",
        "too_big": "This graph has more than {limit} nodes: stepping through its backward is off.",
        "source": "This is the backward() your code called on line {line}.",
        "source_last": "This is the last of the {calls} backward() calls your code made, on line {line}.",
    },
    "zh": {
        "title": "反向传播：第 {k} / {n} 步",
        "title_line": "反向传播（第 {line} 行）：第 {k} / {n} 步",
        "hint": "点击节点可跳到它的那一步",
        "module": "属于 {module}",
        "start": "还没有节点运行。反向传播从输出的节点开始，初始梯度为 {text}。按 ▶ 或 ⏭ 按 autograd 的顺序运行各节点。",
        "received": "收到的梯度",
        "summed": "收到的梯度（它的 {m} 个使用者传来的梯度之和：链式法则把它们相加）",
        "sent": "传出的梯度",
        "to": "传给 {child} 的第 {slot} 个输入",
        "none": "不向下传递梯度（没有输入需要梯度）",
        "leaf": "这一步之后的 {leaf}.grad",
        "saved": "为反向传播保存的",
        "too_big": "这个计算图超过 {limit} 个节点：逐步查看反向传播已关闭。",
        "source": "这是你的代码在第 {line} 行调用的 backward()。",
        "source_last": "你的代码调用了 {calls} 次 backward()，这是最后一次，在第 {line} 行。",
    },
}


def _grad_block(title, g):
    return (f'<div class="ap-step-grad"><span>{escape(title)}</span> <span class="ap-muted">{escape(g["shape"])}</span>'
            f'<pre class="ap-cellpre">{escape(g["text"])}</pre></div>')


def step_html(snapshot, k, language="en"):
    """What the k-th node of the last backward did: the grads it received and passed on."""
    words = _STEP.get(language, _STEP["en"])
    walk = snapshot.get("walk") or {}
    if walk.get("too_big"):
        from playground.model.steps import MAX_STEPS

        return f'<div class="ap-note">{escape(words["too_big"].format(limit=MAX_STEPS))}</div>'
    steps = walk.get("steps") or []
    if not steps:
        return ""
    labels = {n["id"]: n["label"] for n in (snapshot.get("graph") or {}).get("nodes") or []}
    k = max(0, min(int(k), len(steps)))
    source = walk.get("source") or {}
    line = source.get("line")
    title = escape(words["title_line" if line else "title"].format(k=k, n=len(steps), line=line))
    hint = f' <span class="ap-muted ap-step-hint">· {escape(words["hint"])}</span>'
    if k == 0:
        first = steps[0]["received"][0] if steps[0]["received"] and steps[0]["received"][0] else None
        text = " ".join(first["text"].split()) if first else "?"
        start = words["start"].format(text=text)
        if line:
            key = "source_last" if source.get("calls", 1) > 1 else "source"
            start = words[key].format(line=line, calls=source.get("calls")) + ("" if language == "zh" else " ") + start
        return (f'<div class="ap-step"><div class="ap-step-title">{title}{hint}</div>'
                f'<div>{escape(start)}</div></div>')
    step = steps[k - 1]
    name = labels.get(step["node"], step["node"])
    module = next((g["label"] for g in (snapshot.get("graph") or {}).get("groups") or () if step["node"] in g["members"]),
                  None)
    if module is not None:  # the module call that made the node
        hint = f' <span class="ap-muted">({escape(words["module"].format(module=module))})</span>{hint}'
    colon = "：" if language == "zh" else ": "
    parts = [f'<div class="ap-step"><div class="ap-step-title">{title}{colon}{escape(name)}{hint}</div>',
             f'<div class="ap-step-rule">{escape(rule_text(name, language))}</div>']
    if step.get("saved"):  # what the rule computes with: grad_fn._saved_*
        rows = "".join(f'<tr><td class="ap-muted">{escape(name)}</td><td><pre class="ap-cellpre">{escape(text)}</pre></td></tr>'
                       for name, text in step["saved"])
        parts.append(f'<div class="ap-step-grad"><span>{escape(words["saved"])}</span>'
                     f'<table class="ap-step-saved">{rows}</table></div>')
    senders = sum(1 for s in steps[: k - 1] for g in s["sent"] if g and g["to"] == step["node"])
    for g in step["received"]:
        if g is not None:
            title = words["summed"].format(m=senders) if senders > 1 else words["received"]
            parts.append(_grad_block(title, g))
    if step.get("leaf") is not None:
        leaf = labels.get(step["leaf"], step["leaf"])
        if step.get("leaf_grad"):
            parts.append(_grad_block(words["leaf"].format(leaf=leaf), step["leaf_grad"]))
    else:
        sent = [g for g in step["sent"] if g is not None]
        for g in sent:
            to = words["to"].format(child=labels.get(g["to"], g["to"]), slot=g["slot"])
            parts.append(_grad_block(f'{words["sent"]} → {to}', g))
        if not sent:
            parts.append(f'<div class="ap-note">{escape(words["none"])}</div>')
    return "".join(parts) + "</div>"


def html_pane(**kwargs):
    import panel as pn  # here, so the HTML functions above work before Panel is loaded (views.sketch)

    return pn.pane.HTML("", sizing_mode="stretch_width", **kwargs)
