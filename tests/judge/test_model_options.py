"""Command-line options generated from a pydantic model (:mod:`judge.cli.model_options`): names,
types, choices, flags, ranges and defaults come from the fields, and argparse and the model
agree on what a user typed."""

from __future__ import annotations

import argparse
import enum
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, Field, ValidationError

from judge.cli.model_options import add_model_options, flag_of, given, option_help


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Opts(BaseModel):
    name: str = Field(min_length=1, max_length=20, description="what to call it")
    max_depth: int = Field(default=3, ge=1, le=6, description="levels")
    share: float = Field(default=1.0, gt=0, le=1, description="a share, 100% at most")
    order: Literal["bfs", "dfs"] = "bfs"
    colour: Colour = Field(default=Colour.RED, description="a colour")
    seed: int | None = Field(default=None, description="a seed")
    folder: Path | None = None
    quick: bool = Field(default=False, description="go quickly")
    checks: bool = Field(default=True, description="check each step")


def parser() -> tuple[argparse.ArgumentParser, list[str]]:
    p = argparse.ArgumentParser(prog="t", exit_on_error=False)
    return p, add_model_options(p, Opts)


def test_every_field_becomes_a_typed_option_and_nothing_is_given_by_default() -> None:
    p, names = parser()
    assert names == list(Opts.model_fields)
    assert given(p.parse_args([]), names) == {}
    args = p.parse_args(
        ["--name", "n", "--max-depth", "2", "--share", "0.5", "--order", "dfs", "--colour",
         "blue", "--seed", "7", "--folder", "runs/x", "--quick", "--no-checks"]
    )  # fmt: skip
    got = given(args, names)
    assert got == {"name": "n", "max_depth": 2, "share": 0.5, "order": "dfs",
                   "colour": Colour.BLUE, "seed": 7, "folder": Path("runs/x"), "quick": True,
                   "checks": False}  # fmt: skip
    assert Opts.model_validate(got).checks is False
    assert Opts.model_validate({"name": "n"}) == Opts(name="n")  # the model's defaults


def test_choices_and_types_are_checked_by_argparse() -> None:
    p, _ = parser()
    for bad in (["--order", "random"], ["--colour", "green"], ["--max-depth", "two"]):
        with pytest.raises(argparse.ArgumentError):
            p.parse_args(bad)


def test_ranges_are_the_model_s_to_check_and_the_help_s_to_tell() -> None:
    p, names = parser()
    with pytest.raises(ValidationError) as err:
        Opts.model_validate(given(p.parse_args(["--name", "n", "--max-depth", "9"]), names))
    assert flag_of(str(err.value.errors()[0]["loc"][0]), Opts) == "--max-depth"
    help_text = p.format_help()  # a "%" in a description must not break argparse's help
    assert "levels (1 to 6; default 3)" in help_text
    assert "a share, 100% at most (above 0, at most 1; default 1.0)" in " ".join(help_text.split())
    assert option_help(Opts.model_fields["name"]) == "what to call it (1-20 characters)"
    assert option_help(Opts.model_fields["colour"]) == "a colour (default red)"
    assert option_help(Opts.model_fields["seed"]) == "a seed"
    assert option_help(Opts.model_fields["quick"]) == "go quickly"
    assert "on by default, this flag turns it off" in option_help(Opts.model_fields["checks"])
    assert [flag_of("checks", Opts), flag_of("quick", Opts), flag_of("max_depth")] == [
        "--no-checks", "--quick", "--max-depth",
    ]  # fmt: skip


def test_fields_without_a_single_value_must_be_left_out() -> None:
    class Listy(BaseModel):
        skills: list[str] = []
        k: int = 1

    with pytest.raises(TypeError, match="exclude it"):
        add_model_options(argparse.ArgumentParser(), Listy)
    p = argparse.ArgumentParser()
    assert add_model_options(p, Listy, exclude=["skills"]) == ["k"]
