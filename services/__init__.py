"""One package per Artisan service; a service never imports another service."""
