"""Lossless context management: an agent's whole conversation kept in an append-only store,
and the prompt of each step a bounded active context — a summary DAG over older spans and a
raw fresh tail — that only grows at its end between compactions."""
