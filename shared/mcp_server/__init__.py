"""Artisan as an MCP server: one set of tools, served over stdio (`artisan mcp`) and streamable
HTTP (the gateway's /mcp). Each tool is a client of the REST API with the caller's own key, so
permissions, isolation, limits and validation are exactly the REST API's."""
