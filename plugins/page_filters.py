"""Template filters for the explorer's pages: `tilde_encode` (a row's key in its URL, as Datasette spells it)."""

from datasette import hookimpl
from datasette.utils import tilde_encode


@hookimpl
def prepare_jinja2_environment(env):
    env.filters["tilde_encode"] = tilde_encode
