"""Exercises: a question on an example ("what will y.grad be?"), answered before the learner sees
it and checked against what autograd computes. No Panel: the app shows the verdicts."""
import ast
import re
from dataclasses import dataclass

import numpy as np

RTOL, ATOL = 1e-3, 5e-4  # printed values have 4 decimals


@dataclass(frozen=True)
class Given:
    """What the code must hold before the question applies (the learner sets it up)."""
    name: str
    attr: str  # "value" or "retains_grad"
    value: object
    setup_en: str
    setup_zh: str


@dataclass(frozen=True)
class Exercise:
    question_en: str
    question_zh: str
    hint_en: str
    hint_zh: str
    name: str  # the tensor asked about
    attr: str = "grad"  # "grad" or "value"
    index: tuple | None = None  # one element of it (inp.grad[0, 1])
    backward_calls: int = 1  # Backward calls on a fresh run of the code that the answer is about
    given: Given | None = None

    def question(self, language="en"):
        return self.question_zh if language == "zh" else self.question_en

    def target(self):
        """How the question names what it asks about: ``inp.grad[0, 1]``."""
        text = f"{self.name}.grad" if self.attr == "grad" else self.name
        return text + (f"[{', '.join(map(str, self.index))}]" if self.index is not None else "")


class AnswerError(ValueError):
    def __init__(self, en, zh):
        super().__init__(en)
        self.text = {"en": en, "zh": zh}


_NUMBER_NODES = (ast.Expression, ast.Constant, ast.List, ast.Tuple, ast.UnaryOp, ast.BinOp, ast.USub, ast.UAdd,
                 ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.Load)


def parse_answer(text):
    """The learner's answer: None, or a float64 array. Takes what PyTorch prints
    (``tensor([[4.5000, 4.5000], ...], requires_grad=True)``), plain numbers and lists, and
    arithmetic on numbers (``1.5 * 3``, ``-2/3``)."""
    text = (text or "").strip()
    if not text:
        raise AnswerError("Type an answer first: a number, a list such as [1, 2], or None.",
                          "请先输入答案：一个数、一个列表（如 [1, 2]）或 None。")
    if text in ("None", "none"):
        return None
    m = re.fullmatch(r"tensor\((.*?)(,\s*\w+=.*)?\)", text, re.S)
    if m:
        text = m.group(1)
    try:
        tree = ast.parse(text, mode="eval")
        for n in ast.walk(tree):
            if not isinstance(n, _NUMBER_NODES) or isinstance(n, ast.Constant) and type(n.value) not in (int, float):
                raise ValueError
            if isinstance(n, ast.Constant):
                n.value = float(n.value)  # float arithmetic: 9**9**9 overflows at once instead of running on
        value = np.array(eval(compile(tree, "<answer>", "eval"), {"__builtins__": {}}), dtype=np.float64)
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, OverflowError):
        raise AnswerError(f"Cannot read {text!r} as numbers: type a number, a list such as [[1, 2], [3, 4]], or None.",
                          f"无法把 {text!r} 读成数字：请输入一个数、一个列表（如 [[1, 2], [3, 4]]）或 None。") from None
    return value


def backward_actions(exercise, example):
    """The Backward calls, with the example's settings, on a fresh run of the code."""
    action = {"op": "backward", "output": example.output, "gradient": example.gradient,
              "retain_graph": example.retain_graph, "create_graph": example.create_graph}
    return [dict(action) for _ in range(exercise.backward_calls)]


def setup_needed(exercise, snapshot, language="en"):
    """What the learner must change first (the text), or None when the code is ready."""
    given = exercise.given
    if given is None:
        return None
    row = _row(snapshot, given.name)
    if row is not None:
        if given.attr == "retains_grad" and row.get("retains_grad") == given.value:
            return None
        if given.attr == "value" and _close(_printed(row["value"]), given.value):
            return None
    return given.setup_zh if language == "zh" else given.setup_en


def check(exercise, snapshot, text, language="en"):
    """{"status": "right" | "wrong" | "invalid", "message"} for the answer ``text``, on a snapshot
    taken after ``backward_actions`` (the app replays them first)."""
    zh = language == "zh"
    try:
        answer = parse_answer(text)
    except AnswerError as exc:
        return {"status": "invalid", "message": exc.text["zh" if zh else "en"]}
    target = exercise.target()
    row = _row(snapshot, exercise.name)
    if row is None or not snapshot.get("ok", True):
        return {"status": "invalid", "message": (f"代码里已经没有 {exercise.name} 了，或者运行出错：请重新加载示例。" if zh else
                                                 f"The code no longer has {exercise.name}, or it failed: reload the example.")}
    if exercise.attr == "grad" and row.get("grad_state") != "computed":
        truth = None
    else:
        truth = _printed(row[exercise.attr])
        if truth is None:
            return {"status": "invalid", "message": ("这个张量太大，无法核对。" if zh else "That tensor is too big to check here.")}
    if truth is not None and exercise.index is not None:
        truth = np.asarray(truth, dtype=np.float64)[exercise.index]
    actual = "None" if truth is None else _show(truth)
    hint = exercise.hint_zh if zh else exercise.hint_en
    if answer is None or truth is None:
        right = answer is None and truth is None
    else:
        truth = np.asarray(truth, dtype=np.float64)
        if answer.shape != truth.shape and answer.ndim:
            return {"status": "wrong", "message": (
                f"✗ 形状不对：{target} 的形状是 {_shape(truth, zh)}，你的答案是 {_shape(answer, zh)}。" if zh else
                f"✗ Not the right shape: {target} is {_shape(truth, zh)}, your answer is {_shape(answer, zh)}.")}
        right = bool(np.allclose(answer, truth, rtol=RTOL, atol=ATOL))
    if right:
        return {"status": "right", "message": f"✓ 正确：{target} = {actual}" if zh else f"✓ Right: {target} = {actual}"}
    return {"status": "wrong", "message": (f"✗ 不对：{target} = {actual}；{hint}" if zh else
                                           f"✗ Not quite: {target} = {actual} — {hint}")}


def _row(snapshot, name):
    return next((r for r in snapshot.get("inspector") or () if r["name"] == name), None)


def _printed(text):
    """A tensor's numbers read back from the snapshot's printed form (to its 4 decimals); None when
    PyTorch's print summarised it (``...``)."""
    try:
        return parse_answer(text.removeprefix("Parameter containing:"))
    except AnswerError:
        return None


def _close(numbers, value):
    return numbers is not None and np.shape(numbers) == np.shape(value) and np.allclose(numbers, value, rtol=RTOL,
                                                                                      atol=ATOL)


def _shape(a, zh):
    return ("单个数" if zh else "a single number") if a.ndim == 0 else "×".join(map(str, a.shape))


def _show(v):
    """Numbers as PyTorch prints them: ``12.``, ``0.0770``, ``[[-6., -6.], [-6., -6.]]``."""
    a = np.asarray(v, dtype=np.float64)
    whole = bool(np.all(np.isfinite(a) & (a == np.round(a))))
    fmt = (lambda x: f"{x:.0f}.") if whole else (lambda x: f"{x:.4f}")
    if a.ndim == 0:
        return fmt(float(a))
    return " ".join(np.array2string(a, separator=", ", formatter={"float_kind": fmt}).split())
