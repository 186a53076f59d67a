"""Which Host headers the review server accepts (security.py); the CSRF check and the security
headers are pinned over HTTP in test_app.py, against the real server."""

from knowledge_assets.review.web.security import allowed_hosts


def test_a_bind_beyond_loopback_accepts_its_own_address_and_loopback_only():
    assert allowed_hosts("127.0.0.1") == ("127.0.0.1", "localhost", "[::1]")
    assert allowed_hosts("10.1.2.3") == ("127.0.0.1", "localhost", "[::1]", "10.1.2.3")
    assert allowed_hosts("fd00::5")[-1] == "[fd00::5]"
    assert allowed_hosts("0.0.0.0") == ("*",)
