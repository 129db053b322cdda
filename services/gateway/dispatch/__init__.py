"""Dispatch: stored work sent to the bus (outbox, dispatcher), its progress fanned out to the
SSE streams (progress_hub, streams, sse). An engine the features use: it imports none of them."""
