"""Read and edit the user's code: toggling ``requires_grad`` rewrites the code itself, so the
toggle survives re-runs and share links.

Edits are made on the source text at ``ast`` positions; everything else stays byte-for-byte.
Only top-level code is considered (plus the bodies of top-level ``with``/``if``/``try``).
"""
import ast
import re
from dataclasses import dataclass, field

# Factory calls that accept ``requires_grad=``.
FACTORIES = frozenset({
    "tensor", "ones", "zeros", "randn", "rand", "eye", "full", "arange", "linspace", "logspace",
    "empty", "ones_like", "zeros_like", "randn_like", "rand_like", "full_like", "empty_like",
    "scalar_tensor", "Variable",
})
# Factories without the keyword: toggling on appends ``.requires_grad_()``.
FACTORIES_WITHOUT_KEYWORD = frozenset({"from_numpy", "as_tensor"})
_NO_GRAD_CONTEXTS = frozenset({"no_grad", "inference_mode"})


class NotToggleable(ValueError):
    """Raised with a sentence saying why a name's requires_grad cannot be toggled in the code."""


@dataclass
class Site:
    """Where a name's requires_grad is decided: a factory call, ``x.requires_grad_(...)``,
    or ``x.requires_grad = ...``."""

    kind: str  # "factory" | "factory_without_keyword" | "method" | "attribute"
    node: ast.AST  # the Call, or the assigned value for "attribute"


@dataclass
class Analysis:
    sites: dict = field(default_factory=dict)  # name -> Site
    reasons: dict = field(default_factory=dict)  # name -> why it is not toggleable
    order: list = field(default_factory=list)  # names, by their last top-level binding
    origins: dict = field(default_factory=dict)  # name -> "detach" | "no_grad"
    syntax_ok: bool = True

    def toggleable(self, name):
        """(True, None) or (False, reason)."""
        if name in self.sites:
            return True, None
        if not self.syntax_ok:
            return False, "Fix the syntax error first."
        return False, self.reasons.get(name) or f"There is no top-level assignment to {name} in the code."


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


class _Analyser:
    def __init__(self, code):
        self.code = code
        self.result = Analysis()
        self.torch_names = {"torch"}  # names bound to torch or its submodules
        self.bare_factories = set()  # names imported with `from torch import ones`

    def snippet(self, node):
        text = ast.get_source_segment(self.code, node) or "..."
        text = " ".join(text.split())
        return text if len(text) <= 40 else text[:37] + "..."

    def factory_kind(self, value):
        if not isinstance(value, ast.Call):
            return None
        func = value.func
        if isinstance(func, ast.Name):
            name = func.id if func.id in self.bare_factories else None
        else:
            dotted = _dotted(func)
            root = dotted.split(".")[0] if dotted else None
            name = func.attr if root in self.torch_names else None
        if name in FACTORIES:
            return "factory"
        if name in FACTORIES_WITHOUT_KEYWORD:
            return "factory_without_keyword"
        return None

    def is_no_grad(self, item):
        expr = item.context_expr
        if not isinstance(expr, ast.Call):
            return False
        func = expr.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in _NO_GRAD_CONTEXTS:
            return True
        return (
            name == "set_grad_enabled"
            and len(expr.args) == 1
            and isinstance(expr.args[0], ast.Constant)
            and expr.args[0].value is False
        )

    def touch(self, name):
        order = self.result.order
        if name in order:
            order.remove(name)
        order.append(name)

    def bind_other(self, name, reason):
        self.touch(name)
        self.result.sites.pop(name, None)
        self.result.origins.pop(name, None)
        self.result.reasons[name] = reason

    def bind(self, name, value, no_grad, in_loop):
        r = self.result
        self.touch(name)
        kind = self.factory_kind(value)
        origin = None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "detach":
            origin = "detach"
        elif isinstance(value, ast.Attribute) and value.attr == "data":
            origin = "detach"
        elif no_grad and kind is None:
            origin = "no_grad"
        if origin:
            r.origins[name] = origin
        else:
            r.origins.pop(name, None)
        r.sites.pop(name, None)
        r.reasons.pop(name, None)
        if in_loop:
            r.reasons[name] = f"{name} is assigned inside a loop: edit the code to change requires_grad."
        elif kind:
            r.sites[name] = Site(kind, value)
        elif (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "requires_grad_"
            and self.factory_kind(value.func.value)
        ):
            r.sites[name] = Site("method", value)
        else:
            r.reasons[name] = (
                f"Only tensors created by a factory call such as torch.ones(...) can be toggled; "
                f"{name} comes from `{self.snippet(value)}`."
            )

    def names_in(self, target):
        return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]

    def walk(self, body, no_grad=False, in_loop=False):
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self.imports(stmt)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        self.bind(target.id, stmt.value, no_grad, in_loop)
                    elif isinstance(target, ast.Attribute) and target.attr == "requires_grad":
                        self.requires_grad_statement(target.value, Site("attribute", stmt.value), in_loop)
                    elif isinstance(target, (ast.Tuple, ast.List, ast.Starred)):
                        for name in self.names_in(target):
                            self.bind_other(name, f"{name} is unpacked from `{self.snippet(stmt.value)}`.")
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
                self.bind(stmt.target.id, stmt.value, no_grad, in_loop)
            elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                self.touch(stmt.target.id)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                func = stmt.value.func
                if isinstance(func, ast.Attribute) and func.attr == "requires_grad_":
                    self.requires_grad_statement(func.value, Site("method", stmt.value), in_loop)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                inner = no_grad or any(self.is_no_grad(item) for item in stmt.items)
                for item in stmt.items:
                    if item.optional_vars is not None:
                        for name in self.names_in(item.optional_vars):
                            self.bind_other(name, f"{name} is bound by a with statement.")
                self.walk(stmt.body, inner, in_loop)
            elif isinstance(stmt, ast.If):
                self.walk(stmt.body, no_grad, in_loop)
                self.walk(stmt.orelse, no_grad, in_loop)
            elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
                self.walk(stmt.body, no_grad, in_loop)
                for handler in stmt.handlers:
                    self.walk(handler.body, no_grad, in_loop)
                self.walk(stmt.orelse, no_grad, in_loop)
                self.walk(stmt.finalbody, no_grad, in_loop)
            elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                if not isinstance(stmt, ast.While):
                    for name in self.names_in(stmt.target):
                        self.bind_other(name, f"{name} is a loop variable.")
                self.walk(stmt.body, no_grad, True)
                self.walk(stmt.orelse, no_grad, True)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.bind_other(stmt.name, f"{stmt.name} is a {'class' if isinstance(stmt, ast.ClassDef) else 'function'}.")

    def requires_grad_statement(self, receiver, site, in_loop):
        if not isinstance(receiver, ast.Name):
            return
        name = receiver.id
        if name not in self.result.order:
            return
        if in_loop:
            self.result.sites.pop(name, None)
            self.result.reasons[name] = f"{name}.requires_grad is changed inside a loop: edit the code."
        else:
            self.result.sites[name] = site
            self.result.reasons.pop(name, None)

    def imports(self, stmt):
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name == "torch" or alias.name.startswith("torch."):
                    self.torch_names.add(alias.asname or "torch")
        elif stmt.module and (stmt.module == "torch" or stmt.module.startswith("torch.")) and not stmt.level:
            for alias in stmt.names:
                bound = alias.asname or alias.name
                if alias.name in FACTORIES or alias.name in FACTORIES_WITHOUT_KEYWORD:
                    self.bare_factories.add(bound)
                else:
                    self.torch_names.add(bound)  # a submodule such as autograd


def analyse(code):
    """Parse ``code`` and find, per top-level name: toggle site or reason, binding order, origin."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return Analysis(syntax_ok=False)
    analyser = _Analyser(code)
    analyser.walk(tree.body)
    return analyser.result


class _Text:
    """Maps ast (line, UTF-8 byte column) positions to indexes in the str."""

    def __init__(self, code):
        self.code = code
        self.starts = [0]
        self.lines = []
        pos = 0
        for match in re.finditer(r"\r\n|\r|\n", code):
            self.lines.append(code[pos:match.start()])
            pos = match.end()
            self.starts.append(pos)
        self.lines.append(code[pos:])

    def index(self, lineno, col):
        line = self.lines[lineno - 1]
        return self.starts[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8", "replace"))

    def start(self, node):
        return self.index(node.lineno, node.col_offset)

    def end(self, node):
        return self.index(node.end_lineno, node.end_col_offset)


def _replace(code, start, end, text):
    return code[:start] + text + code[end:]


def _edit_factory(text, call, on):
    code = text.code
    keyword = next((k for k in call.keywords if k.arg == "requires_grad"), None)
    elements = sorted(call.args + call.keywords, key=lambda n: (n.lineno, n.col_offset))
    if on:
        if keyword is not None:
            if isinstance(keyword.value, ast.Constant) and keyword.value.value is True:
                return code
            return _replace(code, text.start(keyword.value), text.end(keyword.value), "True")
        if elements:
            end = text.end(elements[-1])
            return _replace(code, end, end, ", requires_grad=True")
        close = text.end(call) - 1
        return _replace(code, close, close, "requires_grad=True")
    if keyword is None:
        return code
    i = elements.index(keyword)
    if i > 0:
        return _replace(code, text.end(elements[i - 1]), text.end(keyword), "")
    if len(elements) > 1:
        return _replace(code, text.start(keyword), text.start(elements[1]), "")
    start, end = text.start(keyword), text.end(keyword)
    rest = code[end:text.end(call)]
    stripped = rest.lstrip()
    if stripped.startswith(","):
        end += len(rest) - len(stripped) + 1
    return _replace(code, start, end, "")


def _edit_method(text, call, on):
    code = text.code
    arg = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == "requires_grad"), None
    )
    if arg is None:
        if on:
            return code
        close = text.end(call) - 1
        return _replace(code, close, close, "False")
    return _replace(code, text.start(arg), text.end(arg), "True" if on else "False")


def set_requires_grad(code, name, requires_grad):
    """Return ``code`` edited so the tensor bound to ``name`` is created with the given
    requires_grad. Raises NotToggleable with the reason when that cannot be done."""
    analysis = analyse(code)
    ok, reason = analysis.toggleable(name)
    if not ok:
        raise NotToggleable(reason)
    site = analysis.sites[name]
    text = _Text(code)
    on = bool(requires_grad)
    if site.kind == "factory":
        new = _edit_factory(text, site.node, on)
    elif site.kind == "factory_without_keyword":
        end = text.end(site.node)
        new = _replace(code, end, end, ".requires_grad_()") if on else code
    elif site.kind == "method":
        new = _edit_method(text, site.node, on)
    else:
        new = _replace(code, text.start(site.node), text.end(site.node), "True" if on else "False")
    try:
        ast.parse(new)
    except SyntaxError:
        raise NotToggleable(f"Could not edit the call that creates {name}; change it in the code.") from None
    return new


def toggleable_names(code):
    """{name: None if toggleable else the reason} for every top-level name."""
    analysis = analyse(code)
    return {name: analysis.toggleable(name)[1] for name in analysis.order}
