"""Review ids: an entity's own id, or `<domain_id>:<surface>` for a key parameter."""

import pytest

from knowledge_assets.review.entities import EntityKey, ReviewError, parse_ref


@pytest.mark.parametrize(("ref", "key"), [
    ("t_9f2a41c0b7", EntityKey("term", "t_9f2a41c0b7")),
    ("f_31de08aa95", EntityKey("formula", "f_31de08aa95")),
    ("r_c07be41f22", EntityKey("rule", "r_c07be41f22")),
    ("d_2ef60a8c19", EntityKey("domain", "d_2ef60a8c19")),
    ("d_2ef60a8c19:Grouping (Composite)", EntityKey("key_parameter", "d_2ef60a8c19", "Grouping (Composite)")),
    # Only the first ':' separates: a surface may hold one.
    ("d_2ef60a8c19:Ratio: A/B", EntityKey("key_parameter", "d_2ef60a8c19", "Ratio: A/B")),
])
def test_an_id_names_its_kind_and_round_trips(ref, key):
    assert parse_ref(ref) == key
    assert key.ref == ref


@pytest.mark.parametrize("ref", ["PA", "t_", "x_123", "t_9f2a41c0b7:PA", "d_2ef60a8c19:", "d_2ef60a8c19:  "])
def test_anything_else_is_refused_with_the_expected_shapes(ref):
    with pytest.raises(ReviewError, match="review id|key parameter id"):
        parse_ref(ref)
