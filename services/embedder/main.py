"""Entry point of the embedder service."""

from services.embedder.handlers import router
from shared.service import run_service


def main() -> None:
    run_service("embedder", router)


if __name__ == "__main__":
    main()
