"""Many independent sessions at once: one interface, a local executor (asyncio tasks under a
concurrency limit) and a Ray executor (the same sessions as tasks on a cluster)."""
