"""The compressor service."""
