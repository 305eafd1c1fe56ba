"""Closing the loop over the traces: the figures of each configuration variant, the Pareto
front, new variants proposed (and, with ``--evolve``, role prompts evolved with GEPA)."""
