"""parameters_to_vector and vector_to_parameters."""

__all__: list[str] = []
