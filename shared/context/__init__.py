"""Context for a chat turn (seed 002): what a question loads, by priority, under the token cap."""
