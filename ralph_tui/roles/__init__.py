"""roles layer."""
