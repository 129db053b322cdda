"""Prometheus metrics of every Artisan process: what the bus, the pipeline and the models did.

Labels are names from the code (subjects, consumers, roles, providers), never a user's id, a file's
id or a filename: a scrape tells how the pipeline runs, not whose work it ran.
"""
