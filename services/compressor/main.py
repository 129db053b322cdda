"""Entry point of the compressor service (run several: they share one durable consumer)."""

from services.compressor.handlers import router
from shared.service import run_service


def main() -> None:
    run_service("compressor", router)


if __name__ == "__main__":
    main()
