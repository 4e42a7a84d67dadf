"""MCP servers the starter app uses through its catalog (config/mcp-servers.json); not scanned."""
