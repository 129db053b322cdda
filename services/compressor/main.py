"""Entry point of the compressor service (run several: they share one durable consumer)."""

from services.compressor.handlers import router
from shared.models.startup import prepare_chat_model
from shared.service import run_service


def main() -> None:
    run_service("compressor", router, startup_checks=[prepare_chat_model], background=True)


if __name__ == "__main__":
    main()
