"""ember: a deep learning library with a C++ core and PyTorch's Python API.

`import ember as torch` runs common PyTorch code: the same names, the same semantics. Importing
ember loads its C++ core and nothing else (no NumPy): see docs/design/python.md.
"""

from ember import _C
from ember._size import Size

_C._set_size_type(Size)

# Every public name of the extension: Tensor, dtypes (including PyTorch's aliases such as
# ember.float and ember.long, which shadow Python builtins in this namespace, as in torch), ops,
# factories. Code that needs the builtins lives in the submodules, not here.
globals().update({k: v for k, v in vars(_C).items() if not k.startswith("_")})
# ember.channels_last prints as PyTorch prints torch.channels_last.
memory_format.__repr__ = memory_format.__str__ = lambda self: f"ember.{self.name}"  # noqa: F821

from ember import (  # noqa: E402, F401  (Python composites)
    _composite,
    _composites,
    _tensor,  # noqa: E402  (Python-side Tensor methods)
    autograd,  # noqa: E402
)

# (Composites named "linalg.x" are ember.linalg's, not top-level names.)
globals().update(
    {k: v for k, v in _composite.FUNCTIONS.items() if k not in globals() and "." not in k}
)
_op_registry = _composite.op_registry

_tensor._install_aliases(globals())
_tensor._install_inplace_functions(globals())

from ember import (  # noqa: E402
    accelerator,
    amp,
    backends,
    compiler,
    cuda,
    datasets,
    distributed,
    func,
    linalg,
    nn,
    onnx,
    optim,
    random,
    utils,
    version,
)
from ember._compile import compile  # noqa: E402
from ember._frontend import *  # noqa: E402, F403
from ember._frontend import install_more_tensor_methods as _install_more_tensor_methods  # noqa: E402
from ember._frontend import install_tensor_methods as _install_tensor_methods  # noqa: E402
from ember._inplace_views import install as _install_inplace_views  # noqa: E402
from ember._legacy import make_types as _make_legacy_types  # noqa: E402
from ember._linalg_torch import install as _install_linalg_names  # noqa: E402
from ember._type_info import finfo, iinfo  # noqa: E402
from ember._utils import (  # noqa: E402
    as_tensor,
    asarray,
    is_tensor,
    numel,
    result_type,
    set_printoptions,
)
from ember._view_copies import install as _install_view_copies  # noqa: E402
from ember.amp import GradScaler  # noqa: E402
from ember.autograd.anomaly_mode import (  # noqa: E402
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from ember.autograd.grad_mode import (  # noqa: E402
    enable_grad,
    inference_mode,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from ember.serialization import *  # noqa: E402, F403

globals().update(_make_legacy_types("ember", "cpu"))  # ember.FloatTensor & co
_install_tensor_methods()
_install_linalg_names(globals())
_install_view_copies(globals())
_install_inplace_views(globals())
_install_more_tensor_methods(globals())
nn.functional._install_top_level(globals(), Tensor)  # noqa: F405  (ember.cosine_similarity & co)

__version__ = "0.1.0"

# PyTorch's constants (torch.pi & co, Python floats as there).
import math as _math  # noqa: E402

pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
newaxis = None

# Modules that read the names above when imported.
from ember import (  # noqa: E402
    _sampling,
    _symbolic,
    cpu,
    fft,
    functional,
    futures,
    overrides,
    return_types,
    signal,
    special,
    testing,
    torch_version,
    types,
)

globals().update({name: getattr(_symbolic, name) for name in _symbolic.NAMES})
from ember._sampling import _standard_gamma, _standard_gamma_grad  # noqa: E402, F401
from ember.cpu import Event, Stream  # noqa: E402, F401
from ember.futures import Future, fork, wait  # noqa: E402, F401
from ember.nn import ModuleDict, ParameterDict  # noqa: E402, F401

# The special kernels' C++ names (special_i0e, ...) are ember.special's (i0e, ...), not
# top-level names. (Their Tensor methods stay: the registry's in-place forms are methods.)
for _name in [n for n in globals() if n.startswith("special_")]:
    del globals()[_name]
del _name

polygamma = special.polygamma  # noqa: F811  (the kernel's binding takes (input, n))

# torch imports torch.multiprocessing, whose reductions make tensors travel by shared memory.
from ember import multiprocessing  # noqa: E402, F401

# Submodules imported on first use (`ember.distributions` or `import ember.distributions`), so
# that `import ember` does not pay for what a program may never touch.
_LAZY_SUBMODULES = frozenset({"distributions"})


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"ember.{name}")
    raise AttributeError(f"module 'ember' has no attribute '{name}'")
