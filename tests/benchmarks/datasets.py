"""Where the public evaluation sets are: ../shared/data beside the repository (its README says
how to use each), or ARTISAN_EVAL_DATA when a checkout lives elsewhere."""

import os
from pathlib import Path

from shared.config import REPO_ROOT

EVAL_DATA = Path(os.environ.get("ARTISAN_EVAL_DATA", REPO_ROOT.parent / "shared" / "data"))
