"""The expected failures are one family: the CLI reports any of them in one place."""

import importlib
import inspect
import pkgutil

import pytest

import knowledge_assets
from knowledge_assets.errors import KnowledgeError, MissingUpstream, read_json


def _exception_classes() -> dict[str, type[BaseException]]:
    """Every public exception class defined in the package, by module:name. Private ones
    (openai_backend's _Retryable, say) are signals inside one module that never reach a user."""
    found = {}
    for module_info in pkgutil.walk_packages(knowledge_assets.__path__, "knowledge_assets."):
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == module.__name__
                    and not name.startswith("_")):
                found[f"{module.__name__}:{name}"] = value
    return found


def test_every_exception_the_package_defines_is_a_knowledge_error():
    classes = _exception_classes()
    assert len(classes) >= 13
    assert [name for name, cls in classes.items() if not issubclass(cls, KnowledgeError)] == []


def test_extract_and_evaluation_have_no_missing_upstream_error_of_their_own():
    from knowledge_assets.evaluation import scores
    from knowledge_assets.extract import stages

    assert not hasattr(stages, "MissingInput") and not hasattr(scores, "NotExtracted")
    assert stages.MissingUpstream is scores.MissingUpstream is MissingUpstream


def test_a_refusal_exits_2_a_signal_128_plus_its_number_and_every_other_expected_failure_1():
    import signal

    from knowledge_assets.run_control.queued import Interrupted
    from knowledge_assets.semantic_review.refusal import Refusal

    codes = {cls.exit_code for name, cls in _exception_classes().items() if not issubclass(cls, Refusal | Interrupted)}
    assert (Refusal.exit_code, codes) == (2, {1})
    assert Interrupted("stopped", signal.SIGTERM).exit_code == 143 and Interrupted.exit_code == 130


def test_the_missing_parsed_document_message_names_the_document_and_the_asset_to_run():
    assert str(MissingUpstream.parsed_document("DOC-1")) == "DOC-1: no parsed document; materialise parsed_chunks first"


class _Domain(KnowledgeError):
    pass


def test_read_json_returns_the_value(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"k": [1, "é"]}', encoding="utf-8")
    assert read_json(path, _Domain, "thing") == {"k": [1, "é"]}


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read the thing (No such file or directory)"),
    (b"{not json", "not a UTF-8 JSON file (Expecting property name"),
    (b'{"k": "\xff"}', "not a UTF-8 JSON file ('utf-8' codec can't decode"),
])
def test_read_json_raises_the_domain_error_naming_the_file_and_the_cause(tmp_path, content, message):
    path = tmp_path / "a.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(_Domain) as raised:
        read_json(path, _Domain, "thing")
    assert str(raised.value).startswith(f"{path}: {message}")


def test_a_short_cause_is_one_line_without_pydantics_help_link_and_cut_to_its_limit():
    from knowledge_assets.errors import short_cause

    cause = ("invalid: 1 validation error for Answer\nterms\n  Input should be a valid array [type=list_type]\n"
             "    For further information visit https://errors.pydantic.dev/2.14/v/list_type; not retried")
    assert short_cause(cause) == ("invalid: 1 validation error for Answer terms Input should be a valid array "
                                  "[type=list_type]; not retried")
    # A cause cut inside the link (an earlier limit) loses the link's stump too.
    assert short_cause("schema: x [type=missing] For further information visit https://errors.pyd") == \
        "schema: x [type=missing]"
    assert short_cause("a" * 300, limit=20) == "a" * 19 + "…"
