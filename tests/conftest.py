"""Suite-wide test settings."""

from hypothesis import settings

# Property tests judge correctness, not speed: a loaded 2-core CI machine must not fail them
# on hypothesis's per-example deadline.
settings.register_profile("project", deadline=None)
settings.load_profile("project")
