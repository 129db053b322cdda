"""Runs Artisan on one machine: embedded NATS + PostgreSQL, and every service as its own process."""
