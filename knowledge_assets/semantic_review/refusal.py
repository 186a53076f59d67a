"""Why a command refused: invalid data, identity or paths never produce a pass."""


class Refusal(Exception):
    """The command writes nothing and exits non-zero; the message names the file and the cause."""
