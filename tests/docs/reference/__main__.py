"""`python -m tests.docs.reference --write` regenerates docs/reference/; `--check` (the
default) exits 1 naming the pages that are out of date."""

import argparse
import os
import sys

# before the code is imported: settings read in this shell (or a test run's) must not leak into
# the pages, and argparse's help takes its width from the terminal
for _name in [name for name in os.environ if name.startswith("ARTISAN_")]:
    del os.environ[_name]
os.environ["COLUMNS"] = "100"

from tests.docs.reference import REFRESH_COMMAND, generated_pages, stale_pages  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.docs.reference")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write the pages")
    mode.add_argument("--check", action="store_true", help="say which are stale (the default)")
    if parser.parse_args().write:
        for path, text in generated_pages().items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return 0
    stale = stale_pages()
    for path in stale:
        sys.stderr.write(f"out of date: {path}\n")
    if stale:
        sys.stderr.write(f"refresh them with: {REFRESH_COMMAND}\n")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
