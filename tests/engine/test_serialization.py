"""``torch.save`` / ``torch.load`` in PyTorch's zip format: files written by the engine load in real
PyTorch 2.13 and the other way round, with the same types, dtypes, shapes, values and requires_grad;
weights_only as in PyTorch 2.6+, with its error; and the saved-tensors tutorial's save-to-disk hooks."""
import io
import os
import pickle
import uuid
import zipfile

import numpy as np
import pytest


def _objects(T):
    return {"view": T.arange(6.0).reshape(2, 3)[:, 1:], "param": T.nn.Parameter(T.ones(2)),
            "long": T.tensor([1, 2]), "int": 3, "bool": T.tensor([True, False]), "size": T.Size([2, 3]),
            "dtype": T.float64, "half": T.tensor(2.5, dtype=T.float16), "nonleaf": T.tensor([1.0, 2.0],
                                                                                            requires_grad=True) * 2,
            "empty": T.zeros(0, 3), "scalar": T.tensor(7.0), "double": T.tensor([[0.1, 0.2]], dtype=T.float64),
            "bytes": b"ab", "set": {1, 2}, "device": T.device("cpu"), "nested": [T.ones(1), (T.zeros(1, 1),)]}


def _describe(x):
    """What a loaded object is, independent of which module loaded it."""
    if hasattr(x, "detach") and hasattr(x, "requires_grad"):
        return (type(x).__name__, str(x.dtype), tuple(x.shape), x.requires_grad, x.grad_fn is None,
                x.detach().numpy().tolist())
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_describe(v) for v in x])
    if isinstance(x, dict):
        return {k: _describe(v) for k, v in x.items()}
    return (type(x).__name__, str(x))


def _roundtrip(src, dst, obj, **load_kw):
    buf = io.BytesIO()
    src.save(obj, buf)
    buf.seek(0)
    return dst.load(buf, **load_kw)


@pytest.mark.parametrize("direction", ["engine->torch", "torch->engine", "engine->engine"])
def test_files_cross_between_engine_and_pytorch(torch_ref, et, direction):
    mods = {"engine": et, "torch": torch_ref}
    src, dst = (mods[m] for m in direction.split("->"))
    got = _describe(_roundtrip(src, dst, _objects(src)))
    expected = _describe(_roundtrip(torch_ref, torch_ref, _objects(torch_ref)))
    assert got == expected
    assert got["view"] == ("Tensor", "torch.float32", (2, 2), False, True, [[1.0, 2.0], [4.0, 5.0]])
    assert got["param"][0] == "Parameter" and got["param"][3] is True
    assert got["nonleaf"] == ("Tensor", "torch.float32", (2,), True, True, [2.0, 4.0])  # a leaf once loaded
    assert got["scalar"][2] == () and got["half"][1] == "torch.float16"


def test_state_dicts_move_between_them(torch_ref, et, tmp_path):
    torch_ref.manual_seed(0)
    ref = torch_ref.nn.Sequential(torch_ref.nn.Linear(3, 4), torch_ref.nn.ReLU(), torch_ref.nn.Linear(4, 1))
    path = tmp_path / "weights.pt"
    torch_ref.save(ref.state_dict(), path)
    model = et.nn.Sequential(et.nn.Linear(3, 4), et.nn.ReLU(), et.nn.Linear(4, 1))
    assert str(model.load_state_dict(et.load(path))) == "<All keys matched successfully>"
    x = [[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]]
    np.testing.assert_allclose(model(et.tensor(x)).detach().numpy(), ref(torch_ref.tensor(x)).detach().numpy(),
                               rtol=1e-6)
    # and back: the engine writes, PyTorch reads
    et.save(model.state_dict(), path)
    back = torch_ref.load(path)
    assert list(back) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert back["0.weight"].equal(ref[0].weight.detach())


def test_archive_layout_is_pytorchs(et, tmp_path):
    path = tmp_path / "model.pt"
    et.save({"w": et.ones(2)}, path)
    names = zipfile.ZipFile(path).namelist()
    assert names[0] == "model/data.pkl"
    assert {"model/data/0", "model/version", "model/byteorder"} <= set(names)
    assert et.load(os.fspath(path))["w"].tolist() == [1.0, 1.0]


class Thing:
    def __init__(self, v):
        self.v = v


def test_weights_only_as_in_pytorch(torch_ref, et):
    messages = []
    for T in (torch_ref, et):
        buf = io.BytesIO()
        T.save({"thing": Thing(1)}, buf)
        buf.seek(0)
        with pytest.raises(pickle.UnpicklingError) as e:
            T.load(buf)
        messages.append(str(e.value))
        buf.seek(0)
        assert T.load(buf, weights_only=False)["thing"].v == 1
        buf.seek(0)
        with T.serialization.safe_globals([Thing]):
            assert T.load(buf)["thing"].v == 1
    assert messages[1] == messages[0]
    assert f"Unsupported global: GLOBAL {Thing.__module__}.Thing was not an allowed global" in messages[1]


def _whole_model(T):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.ReLU(), T.nn.Linear(3, 1))
    return model, T.optim.lr_scheduler.StepLR(T.optim.SGD(model.parameters(), lr=0.1), 2)


def test_whole_modules_need_weights_only_false(torch_ref, et):
    """Modules, optimizers and schedulers pickle under PyTorch's class names: PyTorch's weights_only
    error names the same global, and a whole model saved by either loads in the other."""
    messages = []
    for T in (torch_ref, et):
        buf = io.BytesIO()
        T.save(_whole_model(T)[0], buf)
        buf.seek(0)
        with pytest.raises(pickle.UnpicklingError) as err:
            T.load(buf)
        messages.append(str(err.value))
    assert messages[1] == messages[0]
    assert "GLOBAL torch.nn.modules.container.Sequential was not an allowed global" in messages[1]
    for src, dst in ((et, torch_ref), (torch_ref, et), (et, et)):
        model, sched = _whole_model(src)
        model2, sched2 = _roundtrip(src, dst, (model, sched), weights_only=False)
        assert type(model2) is dst.nn.Sequential and type(model2[2]) is dst.nn.Linear
        assert type(sched2) is dst.optim.lr_scheduler.StepLR and type(sched2.optimizer) is dst.optim.SGD
        x = [[0.5, -1.0], [2.0, 0.25]]
        assert model2(dst.tensor(x)).tolist() == model(src.tensor(x)).tolist()
        assert repr(model2) == repr(model)
    pkl = zipfile.ZipFile(io.BytesIO(_saved_bytes(et, _whole_model(et)[0]))).read("archive/data.pkl")
    assert b"torch.nn.modules.linear\nLinear" in pkl and b"engine" not in pkl


def _saved_bytes(T, obj):
    buf = io.BytesIO()
    T.save(obj, buf)
    return buf.getvalue()


def test_not_a_checkpoint(et):
    with pytest.raises(pickle.UnpicklingError, match="not a file torch.save wrote"):
        et.load(io.BytesIO(b"garbage"))
    buf = io.BytesIO()
    et.save(et.ones(1), buf)
    with pytest.raises(RuntimeError, match="PytorchStreamReader failed reading zip archive"):
        et.load(io.BytesIO(buf.getvalue()[:50]))


def _save_on_disk_tutorial(torch, tmp_dir):
    """The "Hooks for autograd saved tensors" tutorial's save-to-disk example, as written there."""
    class SelfDeletingTempFile():
        def __init__(self):
            self.name = os.path.join(tmp_dir, str(uuid.uuid4()))

        def __del__(self):
            os.remove(self.name)

    def pack_hook(tensor):
        temp_file = SelfDeletingTempFile()
        torch.save(tensor, temp_file.name)
        return temp_file

    def unpack_hook(temp_file):
        return torch.load(temp_file.name)

    x = torch.tensor([0.5, 1.0, -2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = x.pow(2).sin()
    files = len(os.listdir(tmp_dir))
    y.sum().backward()
    return files, len(os.listdir(tmp_dir)), x.grad.tolist()


def test_saved_tensors_on_disk(torch_ref, et, tmp_path):
    (tmp_path / "e").mkdir()
    (tmp_path / "t").mkdir()
    got = _save_on_disk_tutorial(et, tmp_path / "e")
    expected = _save_on_disk_tutorial(torch_ref, tmp_path / "t")
    np.testing.assert_allclose(got[2], expected[2], rtol=1e-6)
    assert got[:2] == expected[:2] == (2, 0)  # two saved tensors on disk, deleted once backward freed the graph
