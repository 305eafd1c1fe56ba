"""Tests of the Textual app."""
