"""The gateway benchmark's data: a 200-tool fleet (`fleet.py`) and the written queries (`queries.py`)."""
