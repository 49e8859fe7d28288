"""mpl_toolkits for scripts/realworld.py: 3-d plotting that draws nothing, as matplotlib/."""

import sys

from matplotlib import _module

mplot3d = _module(__name__ + ".mplot3d")
sys.modules[__name__ + ".mplot3d"] = mplot3d
