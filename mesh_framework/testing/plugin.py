"""The pytest plugin (filled in below)."""
