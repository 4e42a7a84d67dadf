"""A plain click application, outside the agent package: its commands start without the framework."""
