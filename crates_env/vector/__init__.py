"""The compiled, batched twin of the rules engine (numba): ``VectorGame``, every rule system."""

from .games import VectorGame

__all__ = ["VectorGame"]
