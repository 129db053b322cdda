"""The MCP endpoint (/mcp): mounting the tool server, its Host/Origin checks and body limit."""
