"""Artisan's common library: settings, contracts, bus, database, providers, telemetry."""
