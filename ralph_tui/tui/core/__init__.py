"""What the app shows and does, without Textual: the run handle and its lifecycle, the
progress folded from a run's events, the form's checked values and the request built from
them, session following, transcripts, diffs and the words the panes use.

Nothing here imports ``textual`` (the layer contract holds it), so these modules are tested
without an app and load before the first frame needs them.
"""
