"""ember.nn.functional: PyTorch's functional interface over ember's C++ ops, one module per
topic. This module only gathers them: each part's public names (its __all__) are this module's.

The parts import ember and ember._C (and, for a public function of another part, that part),
never this package nor ember.nn: `import ember.nn` imports this package while ember.nn is still
being initialised, so importing it back would read a half-built module.
"""

from ember.nn.functional import activation, attention, conv, layers, loss, norm, pool
from ember.nn.functional.activation import *  # noqa: F403
from ember.nn.functional.attention import *  # noqa: F403
from ember.nn.functional.conv import *  # noqa: F403
from ember.nn.functional.layers import *  # noqa: F403
from ember.nn.functional.loss import *  # noqa: F403
from ember.nn.functional.norm import *  # noqa: F403
from ember.nn.functional.pool import *  # noqa: F403

__all__ = [
    name
    for part in (activation, conv, pool, norm, loss, attention, layers)
    for name in part.__all__
]
