"""The `artisan` command line: run the system, manage users, upload and inspect files."""
