"""The browser's two cookies: the session a form's CSRF token is bound to, and the reviewer's name.

Neither is a login (there is none; serve.py says so loudly off loopback). The session cookie
only ties a form to the browser its page was rendered for, so that another site cannot post
one (security.py checks the token); the reviewer cookie only fills in the name a decision was
last signed with, so that a reviewer does not type it on every page.
"""

from __future__ import annotations

import secrets
from urllib.parse import quote, unquote

from starlette.requests import Request
from starlette.responses import Response

SESSION_COOKIE = "ka_review_session"
REVIEWER_COOKIE = "ka_reviewer"


def browser_session(request: Request) -> str:
    """The browser's session id: its cookie's, or a new one for a browser that has none yet."""
    return request.cookies.get(SESSION_COOKIE) or secrets.token_urlsafe(24)


def keeping_session(request: Request, response: Response, session: str) -> Response:
    """The response, setting the session cookie when the browser does not carry this session yet."""
    if request.cookies.get(SESSION_COOKIE) != session:
        response.set_cookie(SESSION_COOKIE, session, httponly=True, samesite="strict")
    return response


def remembered_reviewer(request: Request) -> str:
    """The name the browser last decided under, for the reviewer field; empty the first time."""
    return unquote(request.cookies.get(REVIEWER_COOKIE, ""))


def remembering(response: Response, reviewer: str) -> Response:
    """The response, setting the cookie that fills in the reviewer's name next time."""
    response.set_cookie(REVIEWER_COOKIE, quote(reviewer.strip(), safe=""), samesite="strict", max_age=365 * 86400)
    return response
