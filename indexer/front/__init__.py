"""Front ends: thin layers that parse what a person, an agent or a server sends and call the layers below.

cli (the `seamless` command, click), mcp_server (`seamless mcp`, the official MCP SDK over stdio), serve
(the Datasette explorer). Each may import any layer; nothing imports a front end but another front end
and `indexer.__main__`.
"""
