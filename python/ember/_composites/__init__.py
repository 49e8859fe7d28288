"""The Python composites by topic (ember/_composite.py says how they are declared)."""

from ember._composites import (  # noqa: F401
    creation,
    elementwise,
    fft,
    indexing,
    linalg,
    linalg_factor,
    nn_resample,
    scan,
    shape,
    sort,
    statistics,
)
