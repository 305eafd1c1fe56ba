"""The MCP server (``ralph-tui mcp``): asking documents, carrying out tasks over them,
searching them and reading past sessions, as tools any MCP client can call. A front end like
the command line and the app: it calls the Python API and nothing beside it runs loops."""
