"""Why a command refused: invalid data, identity or paths never produce a pass."""

from knowledge_assets.errors import KnowledgeError


class Refusal(KnowledgeError):
    """The command writes nothing and exits 2; the message names the file and the cause."""

    exit_code = 2
