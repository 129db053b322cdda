"""The extractor service."""
