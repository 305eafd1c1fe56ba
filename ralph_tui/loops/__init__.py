"""loops layer."""
