"""Optional side-by-side with PyTorch: the same module structure built in both libraries gives
the same traversal, state-dict keys, reprs, error messages and hook values."""

from collections import OrderedDict

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def build(lib):
    """One model definition, written once against either library's API."""
    nn = lib.nn
    F = lib.nn.functional

    class Affine(nn.Module):
        def __init__(self, i, o, bias=True):
            super().__init__()
            self.weight = nn.Parameter(lib.zeros(o, i))
            if bias:
                self.bias = nn.Parameter(lib.zeros(o))
            else:
                self.register_parameter("bias", None)
            self.register_buffer("steps", lib.zeros(()))
            self.register_buffer("cache", lib.zeros(1), persistent=False)
            self.i, self.o = i, o

        def forward(self, x):
            return F.linear(x, self.weight, self.bias)

        def extra_repr(self):
            return f"in={self.i}, out={self.o}"

    class Act(nn.Module):
        def forward(self, x):
            return F.relu(x)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(Affine(3, 4), Act(), Affine(4, 4), Act())
            self.blocks = nn.ModuleList([Affine(4, 4), Affine(4, 4), Act(), Affine(4, 4, False)])
            self.heads = nn.ModuleDict(OrderedDict([("a", Affine(4, 2)), ("b", Act())]))
            self.scales = nn.ParameterList([lib.ones(4), lib.zeros(2, 3)])
            self.extra = nn.ParameterDict({"z": lib.ones(1), "y": lib.zeros(3)})
            self.shared = self.body[0]

        def forward(self, x):
            x = self.body(x)
            for b in self.blocks:
                x = b(x)
            return self.heads["a"](x * self.scales[0])

    return Model()


def fill(model, seed=0):
    """Gives both models the same values: parameters in named order from one NumPy stream."""
    rng = np.random.default_rng(seed)
    values = {}
    for name, p in model.named_parameters():
        values[name] = rng.standard_normal(tuple(p.shape)).astype(np.float32)
    return values


def load_values(model, lib, values):
    with lib.no_grad():
        for name, p in model.named_parameters():
            p.copy_(lib.tensor(values[name]))


def test_same_traversal_and_state_dict_keys():
    e, t = build(ember), build(torch)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in e.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in e.named_parameters(remove_duplicate=False)] == [
        n for n, _ in t.named_parameters(remove_duplicate=False)
    ]
    assert list(e.state_dict()) == list(t.state_dict())
    assert dict(e.state_dict()._metadata) == dict(t.state_dict()._metadata)


def test_same_repr():
    e, t = build(ember), build(torch)
    assert repr(e) == repr(t).replace("torch.", "ember.")


def test_same_outputs_and_round_trip_through_numpy():
    e, t = build(ember), build(torch)
    values = fill(t)
    load_values(t, torch, values)
    # Load into ember through a state dict made of NumPy arrays of torch's tensors.
    sd = OrderedDict((k, ember.tensor(v.detach().numpy())) for k, v in t.state_dict().items())
    result = e.load_state_dict(sd)
    assert repr(result) == "<All keys matched successfully>"
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    ye = np.asarray(e(ember.tensor(x)).tolist())
    yt = t(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(ye, yt, rtol=1e-5, atol=1e-6)


def test_same_load_errors():
    e, t = build(ember), build(torch)
    sd_t = t.state_dict()
    del sd_t["body.0.bias"]
    sd_t["nothing.weight"] = torch.zeros(1)
    sd_t["heads.a.weight"] = torch.zeros(3, 3)
    sd_e = OrderedDict((k, ember.tensor(v.numpy())) for k, v in sd_t.items())
    with pytest.raises(RuntimeError) as te:
        t.load_state_dict(sd_t)
    with pytest.raises(RuntimeError) as ee:
        e.load_state_dict(sd_e)
    assert str(ee.value) == str(te.value).replace("torch.", "ember.")
    rt = t.load_state_dict({"scales.0": torch.ones(4)}, strict=False)
    re_ = e.load_state_dict({"scales.0": ember.ones(4)}, strict=False)
    assert re_.missing_keys == rt.missing_keys and re_.unexpected_keys == rt.unexpected_keys
    assert repr(re_) == repr(rt)


def test_same_backward_hook_values():
    def run(lib):
        m = build(lib)
        load_values(m, lib, fill(m, seed=3))
        seen = []
        m.blocks[1].register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
        m.blocks[1].register_full_backward_hook(
            lambda mod, gi, go: (
                seen.append((gi[0].detach().numpy().copy(), go[0].numpy().copy()))
                if lib is torch
                else seen.append((np.asarray(gi[0].tolist()), np.asarray(go[0].tolist())))
            )
        )
        x = lib.tensor(np.random.default_rng(4).standard_normal((2, 3)).astype(np.float32))
        x.requires_grad_(True)
        m(x).pow(2).sum().backward()
        gx = x.grad.numpy() if lib is torch else np.asarray(x.grad.tolist())
        return seen, gx

    (se, gxe), (st, gxt) = run(ember), run(torch)
    assert len(se) == len(st) == 1
    np.testing.assert_allclose(se[0][0], st[0][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(se[0][1], st[0][1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gxe, gxt, rtol=1e-5, atol=1e-6)


def test_same_init_bounds_formulas():
    from ember.nn import init as einit

    for shape in [(8, 4), (8, 4, 3, 3), (2, 16, 5)]:
        et = ember.empty(*shape)
        tt = torch.empty(*shape)
        assert einit._calculate_fan_in_and_fan_out(
            et
        ) == torch.nn.init._calculate_fan_in_and_fan_out(tt)
    for nl, p in [("relu", None), ("leaky_relu", 0.3), ("tanh", None), ("selu", None)]:
        assert einit.calculate_gain(nl, p) == torch.nn.init.calculate_gain(nl, p)
