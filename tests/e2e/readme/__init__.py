"""The README run as a newcomer runs it: its commands, read from the README itself, each run
against a system started as the quickstart starts it and checked for what the README says."""
