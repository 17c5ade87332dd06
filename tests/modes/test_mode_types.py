"""A mode names its request and result models as the type arguments of ``Mode``
(docs/extending.md, "Add a mode")."""

from __future__ import annotations

from judge.domain.result import Result
from judge.domain.submission import Submission
from judge.modes import get_mode
from judge.modes.base import Mode, RequestT, ResultT
from judge.modes.compare.request import Comparison
from judge.modes.compare.result import ComparisonResult
from judge.modes.edit.request import EditSubmission
from judge.modes.edit.result import EditResult
from judge.modes.edit_compare.request import EditComparison
from judge.modes.edit_compare.result import EditComparisonResult


def test_type_arguments_set_the_models() -> None:
    class Echo(Mode[Submission, Result]):
        name = "echo"

    assert Echo.request_model is Submission and Echo.result_model is Result

    class Family(Mode[RequestT, ResultT]):  # generic: no models of its own yet
        pass

    class Member(Family[Comparison, ComparisonResult]):
        pass

    assert not hasattr(Family, "request_model")
    assert (Member.request_model, Member.result_model) == (Comparison, ComparisonResult)


def test_builtin_modes_models() -> None:
    assert {
        name: (get_mode(name).request_model, get_mode(name).result_model)
        for name in ("score", "edit", "compare", "edit_compare")
    } == {
        "score": (Submission, Result),
        "edit": (EditSubmission, EditResult),
        "compare": (Comparison, ComparisonResult),
        "edit_compare": (EditComparison, EditComparisonResult),
    }
