"""Entry point of the chunker service."""

from services.chunker.handlers import router
from shared.models.startup import prepare_chat_model, prepare_embedder
from shared.service import run_service


def main() -> None:
    run_service(
        "chunker", router, startup_checks=[prepare_chat_model, prepare_embedder], background=True
    )


if __name__ == "__main__":
    main()
