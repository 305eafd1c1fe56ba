"""Measuring how well a configuration answers: suites of questions with expectations, run as
normal traced sessions, scored, and stored with a table and a plot."""
