"""The checks the tests run a sample of and ``benchmarks/`` runs at length, kept out of the
installed packages: ``vector_fuzz`` (the compiled engine's invariants under random play),
``vector_equivalence`` (the compiled engine against the reference, step by step) and
``heuristic_equivalence`` (HeuristicAgent's compiled twin against the agent, move by move);
and ``bounds_checking``, the compiled engine's tests run again with numba's bounds checks on."""
