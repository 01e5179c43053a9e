"""``torch.backends.mps``: no Metal here."""


def is_available():
    return False


def is_built():
    return False
