from knowledge_assets.store.cache import store_answer_once, stored_answers


def test_an_answer_is_stored_once_under_its_key_and_read_back_with_its_mode(store):
    store_answer_once(store, "k1", "glossary", "openai", "gpt-x", '{"entries": []}', "json_schema")
    store_answer_once(store, "k1", "glossary", "openai", "gpt-x", '{"entries": [1]}', "tools")
    store_answer_once(store, "k2", "rule", "openai", "gpt-x", '{"rules": []}', "tools")
    assert stored_answers(store, ["k1", "k2", "k1", "absent"]) == {
        "k1": ('{"entries": []}', "json_schema"),
        "k2": ('{"rules": []}', "tools"),
    }
    assert store.fetch("SELECT count(*) AS n FROM llm_cache")[0]["n"] == 2


def test_no_keys_ask_nothing(store):
    assert stored_answers(store, []) == {}
