"""The compiled, batched twin of the Crates-family engine (numba): ``VectorGame``."""

from .games import VectorGame

__all__ = ["VectorGame"]
