"""Op-table records of the neural-network ops: convolution (conv1d/2d/3d, conv_transpose1d/2d)
through oneDNN, linear and bilinear. Imported at the end of op_db.py."""

from __future__ import annotations


def records():
    return []
