"""predict builds its terms with `predicted_term`, a shortcut past pydantic's model_construct: it
must give the very instance model_construct gives, and break here when PredictedTerm changes."""

from __future__ import annotations

from planners.perf.predict import PredictedTerm, predicted_term


def test_predicted_term_is_model_construct() -> None:
    fields = {"name": "disks", "mb_s": 812.5, "iops": 203.125, "note": "60 disks"}
    fast = predicted_term(**fields)
    slow = PredictedTerm.model_construct(**fields)  # type: ignore[arg-type]
    assert set(PredictedTerm.model_fields) == set(fields)  # a new field: predicted_term must set it
    assert fast == slow
    assert vars(fast) == vars(slow)
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_extra == slow.model_extra
    assert fast.__pydantic_private__ == slow.__pydantic_private__
    assert fast.model_dump_json() == slow.model_dump_json()
    assert PredictedTerm.model_validate(fast.model_dump()) == fast
