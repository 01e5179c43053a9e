"""Exercises: the learner's answer read as PyTorch prints numbers, and checked against what autograd
computes on a fresh run with the question's Backward calls (set up as the question asks first)."""
import pytest

from playground.model import examples
from playground.model.exercises import AnswerError, backward_actions, check, parse_answer, setup_needed


@pytest.mark.parametrize("text, numbers", [
    ("4.5", 4.5),
    ("tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]], requires_grad=True)", [[4.5, 4.5], [4.5, 4.5]]),
    ("tensor(12., grad_fn=<MulBackward0>)", 12.0),
    ("[1, -2.5e-1, 1/3]", [1.0, -0.25, 1 / 3]),
    ("1.5 * 3", 4.5),
])
def test_answers_are_read_as_pytorch_prints_numbers(text, numbers):
    assert parse_answer(text).tolist() == numbers


def test_none_and_unreadable_answers():
    assert parse_answer(" None ") is None
    for text in ("9**9**9", "[1] * 10**9", "__import__('os')", "True", "'6'", "[[1, 2], [3]]", "x.grad"):
        with pytest.raises(AnswerError, match="as numbers"):
            parse_answer(text)
    with pytest.raises(AnswerError) as info:
        parse_answer("")
    assert info.value.text == {"en": "Type an answer first: a number, a list such as [1, 2], or None.",
                               "zh": "请先输入答案：一个数、一个列表（如 [1, 2]）或 None。"}


# How a learner sets each question up: (the example's line, what it becomes).
SETUP = {
    "higher_order": ("torch.tensor(3.0, requires_grad=True)", "torch.tensor(2.0, requires_grad=True)"),
    "chain_rule": ("x2 = x1 * w1\n", "x2 = x1 * w1\nx2.retain_grad()\n"),
    "forward_ad": ("torch.tensor([1.0, 0.0, 0.0])", "torch.tensor([0.0, 1.0, 0.0])"),
}
# (the right answer, a wrong one, what a check of the wrong one says)
ANSWERS = {
    "basics": ("None", "4.5", "✗ Not quite: y.grad = None — y is not a leaf, so backward does not keep its gradient"),
    "accumulate": ("6", "2", "✗ Not quite: inp.grad[0, 1] = 6. — Each Backward adds 2·(inp + 1)"),
    "higher_order": ("12", "18", "✗ Not quite: x.grad = 12. — dy_dx = 3x² still has a graph"),
    "chain_rule": ("[[-6, -6], [-6, -6]]", "-30", "✗ Not quite: x2.grad = [[-6., -6.], [-6., -6.]] — L = Y - x2·w2"),
    "forward_ad": ("0.0770", "1.3818", "✗ Not quite: jvp = 0.0770 — jvp is J·v"),
}


def test_every_exercise_has_its_checks():
    assert sorted(e.key for e in examples.EXAMPLES if e.exercise) == sorted(ANSWERS)


@pytest.mark.parametrize("key", sorted(ANSWERS))
def test_each_exercise_checks_against_what_autograd_computes(session, key):
    ex = examples.get_example(key)
    exercise = ex.exercise
    session.run(ex.code)
    code = ex.code
    if key in SETUP:
        assert setup_needed(exercise, session.snapshot().to_dict()) == exercise.given.setup_en
        assert setup_needed(exercise, session.snapshot().to_dict(), "zh") == exercise.given.setup_zh
        old, new = SETUP[key]
        assert old in code
        code = code.replace(old, new)
        session.run(code)
    assert setup_needed(exercise, session.snapshot().to_dict()) is None
    snap = session.restore(code, backward_actions(exercise, ex)).to_dict()
    assert snap["ok"], snap["error"]
    assert snap["backward_count"] == exercise.backward_calls
    right, wrong, said = ANSWERS[key]
    assert check(exercise, snap, right)["status"] == "right"
    verdict = check(exercise, snap, wrong)
    assert verdict["status"] == "wrong" and verdict["message"].startswith(said), verdict
    assert check(exercise, snap, wrong, "zh")["message"].startswith("✗ 不对：")


def test_a_number_stands_for_every_element_and_shapes_must_match(session):
    ex = examples.get_example("chain_rule")
    code = ex.code.replace(*SETUP["chain_rule"])
    snap = session.restore(code, backward_actions(ex.exercise, ex)).to_dict()
    assert check(ex.exercise, snap, "-6")["message"] == "✓ Right: x2.grad = [[-6., -6.], [-6., -6.]]"
    assert check(ex.exercise, snap, "[-6, -6]") == {
        "status": "wrong", "message": "✗ Not the right shape: x2.grad is 2×2, your answer is 2."}
    assert check(ex.exercise, snap, "-6.0004")["status"] == "right"  # as printed, to 4 decimals
    assert check(ex.exercise, snap, "-6.01")["status"] == "wrong"
    assert check(ex.exercise, snap, "minus six") == {
        "status": "invalid",
        "message": "Cannot read 'minus six' as numbers: type a number, a list such as [[1, 2], [3, 4]], or None."}


def test_a_question_on_code_that_lost_its_tensor(session):
    ex = examples.get_example("basics")
    snap = session.run("import torch\nx = torch.ones(2)\n").to_dict()
    assert check(ex.exercise, snap, "None") == {
        "status": "invalid", "message": "The code no longer has y, or it failed: reload the example."}
