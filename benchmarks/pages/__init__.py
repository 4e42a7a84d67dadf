"""The benchmark pages, written from the results files in benchmarks/results/ (one module per section).

Nothing here measures: every figure on a page comes from a results file, and every verdict is computed from
those figures and the targets in `goals`. `benchmarks/report.py` writes the pages; the test suite checks that
the committed pages equal what it writes from the committed results.
"""

from .site import MAIN_PAGE, MESH_PAGE, load_results, render_pages

__all__ = ["MAIN_PAGE", "MESH_PAGE", "load_results", "render_pages"]
