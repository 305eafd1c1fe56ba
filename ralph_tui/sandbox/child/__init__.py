"""The sandbox child: the code that runs inside the isolated interpreter.

It imports only the standard library and its own modules (relatively), because inside the
sandbox it is mounted as a top-level package named ``child``, with the rest of ``ralph_tui``
out of sight. ``framing`` is shared with the host.
"""
