"""Front ends: thin layers that parse what a person, an agent or a server sends and call the layers below. Each may
import any layer; nothing imports a front end but another front end and `indexer.__main__`."""
