"""``torch.backends.cuda``: not built; its matmul flags settable as in PyTorch."""


class cuBLASModule:
    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = cuBLASModule()


def is_built():
    return False
