"""`python -m mesh_framework.cli` is the `mesh` command."""

import sys

from .entry import main

sys.exit(main())
