"""``torch.version``: the PyTorch release the engine follows, built without CUDA or ROCm."""
__version__ = "2.13.0"
cuda = None
hip = None
debug = False
