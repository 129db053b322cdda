"""The embedded language model: llama.cpp's OpenAI-compatible server from the xllamacpp wheel, in
a process of its own (`python -m shared.launcher.llama_server`) that `artisan up` starts, watches
and restarts like NATS and PostgreSQL (embedded_model.py). It serves /v1/chat/completions (with
JSON schemas enforced by grammar), /health and Prometheus /metrics (tokens/s, queue depth)."""

import argparse
import signal
import threading
from pathlib import Path


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="llama_server")
    parser.add_argument("--model", type=Path, required=True, help="a GGUF file")
    parser.add_argument("--alias", required=True, help="the model's name in the API")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--context", type=int, required=True, help="tokens per slot")
    parser.add_argument("--parallel", type=int, default=1, help="requests decoded together")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    import xllamacpp

    args = parse(argv)
    params = xllamacpp.CommonParams()
    params.model.path = str(args.model)
    params.model_alias = args.alias
    params.port = args.port
    params.n_parallel = args.parallel
    params.n_ctx = args.context * args.parallel  # the slots share the context
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.endpoint_metrics = True
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    server = xllamacpp.Server(params)  # serves from its own threads until deleted
    stop.wait()
    del server


if __name__ == "__main__":
    main()
