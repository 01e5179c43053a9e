"""``torch.backends``: what PyTorch's CPU build reports, and the flags code sets for reproducibility
(``torch.backends.cudnn.deterministic = True``), kept as plain module attributes."""
from . import cuda, cudnn, mps  # noqa: F401
