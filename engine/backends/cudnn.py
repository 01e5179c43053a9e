"""``torch.backends.cudnn``: absent here, its flags settable as in PyTorch."""
enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None
