"""``torch._dynamo``: the names tutorials call (see ``torch.compile``, engine/_compile.py)."""
from ._compile import is_compiling, list_backends  # noqa: F401
from .compiler import disable, reset  # noqa: F401
