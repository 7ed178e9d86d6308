"""Answer only requests addressed to this machine: a page on another site can point its own host name at 127.0.0.1
and read what the explorer answers (DNS rebinding). A `Host` the server was not started for, or an `Origin` that is
not http(s) on one of its names, is refused (403), on /-/mcp too (the MCP specification asks servers to check it).
"""

from urllib.parse import urlsplit

from datasette import hookimpl
from datasette.utils.asgi import Response

LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
ANY_INTERFACE = ("0.0.0.0", "::", "")


def allowed_names(datasette) -> set[str]:
    """The host names this server answers to (set by indexer.front.serve.build_datasette from --host/--allow-host)."""
    extra = getattr(datasette, "seamless_allowed_hosts", ())
    return {*LOCAL_NAMES, *(name.lower().strip("[]") for name in extra if name not in ANY_INTERFACE)}


def host_name(host: str) -> str:
    """`host` of a Host header or URL netloc, without port or brackets, lower case ("" if it is not one)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else ""
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def refusal(scope, names: set[str]) -> str | None:
    """Why this request is refused, or None."""
    headers = {key.lower(): value for key, value in scope.get("headers", [])}
    host = headers.get(b"host")
    if host is not None and host_name(host.decode("latin-1")) not in names:
        listed = ", ".join(sorted(names))
        return f"this explorer answers only to {listed} (add a name with `seamless serve --allow-host`)"
    if (origin := headers.get(b"origin")) is not None:
        url = urlsplit(origin.decode("latin-1"))
        if url.scheme not in ("http", "https") or host_name(url.netloc) not in names:
            return "requests from pages of other sites are refused"
    return None


@hookimpl
def asgi_wrapper(datasette):
    def wrap(app):
        async def host_guard(scope, receive, send):
            if scope["type"] in ("http", "websocket"):
                reason = refusal(scope, allowed_names(datasette))
                if reason:
                    await Response.text(f"Forbidden: {reason}.\n", status=403).asgi_send(send)
                    return
            await app(scope, receive, send)

        return host_guard

    return wrap
