"""What keeps other sites, other host names and oversized bodies from acting through the review
pages, which write the knowledge that goes into prompts:
  - every state-changing request is a POST carrying a CSRF token bound to the browser's
    session cookie (session.py), an HMAC under a secret that lives only as long as the process;
  - the Host header must name the address the server was bound to or loopback (no DNS
    rebinding), except on a bind to every interface, which accepts any Host;
  - the Content-Security-Policy allows this origin's own script and styles only, and no page
    may be framed.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import parse_qs

from starlette.exceptions import HTTPException
from starlette.requests import Request

from knowledge_assets.review.web.session import SESSION_COOKIE

MAX_FORM_BYTES = 256 * 1024
_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; connect-src 'self'")
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def csrf_token(secret: bytes, session: str) -> str:
    """The token every form of a page carries: the browser's session signed with the process's secret."""
    return hmac.new(secret, session.encode(), hashlib.sha256).hexdigest()


async def checked_form(request: Request, secret: bytes) -> dict[str, list[str]]:
    """The urlencoded form, after the CSRF check; a missing or wrong token is a 403."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise HTTPException(413, "the form is too large")
    fields = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
    session = request.cookies.get(SESSION_COOKIE, "")
    token = (fields.get("csrf") or [""])[0]
    if not session or not hmac.compare_digest(token, csrf_token(secret, session)):
        raise HTTPException(403, "This form did not come from this review page (its security token is "
                            "missing or out of date). Reload the page and try again; nothing was written.")
    return fields


def allowed_hosts(host: str) -> tuple[str, ...]:
    """The Host headers a request may carry: the address bound and loopback. A bind to every
    interface (`0.0.0.0`, `::`) cannot know the name clients use, so it accepts any Host; the
    serve command warns loudly for any bind beyond loopback."""
    if host in ("0.0.0.0", "::", ""):
        return ("*",)
    bound = f"[{host}]" if ":" in host else host
    return tuple(dict.fromkeys((*_LOOPBACK_HOSTS, bound)))


class SecurityHeaders:
    """Adds the Content-Security-Policy and its companions to every response."""

    HEADERS = [
        (b"content-security-policy", _CSP.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"DENY"),
    ]

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)
