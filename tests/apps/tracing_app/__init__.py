"""Three agents in a chain for the tracing tests: front -> middle -> back (each its own process)."""
