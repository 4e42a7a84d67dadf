"""Agents for the console tests: `console-sleeper` serves tools of every kind the console's form meets; a
`console-caller` (caller.py) calls its `nap` so a test can stop the sleeper in the middle of a trace."""
