"""Entry point of the embedder service."""

from services.embedder.handlers import router
from shared.models.startup import check_embedding_space
from shared.service import run_service


def main() -> None:
    run_service("embedder", router, startup_checks=[check_embedding_space], background=True)


if __name__ == "__main__":
    main()
