"""Memory: what Artisan keeps and recalls for a user — the facts learned from their turns
(router), the chunks a search finds (search_router) and the context a question would load
(context_router)."""
