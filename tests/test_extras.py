"""A missing optional dependency is named with the command that installs it, by one rule for every extra."""

import doctest

import pytest

import rag_eval_adapters.extras as extras
from rag_eval_adapters.extras import require


def test_an_installed_module_is_returned():
    import json

    assert require("json", needed_by="x", extra="cli") is json


def test_a_missing_module_names_what_needs_it_and_the_extra():
    with pytest.raises(ImportError, match=r"^OpenAICompatibleLLM needs no-such-sdk: "
                                          r"pip install 'rag-eval-adapters\[openai\]'$") as info:
        require("no_such_sdk.sub", needed_by="OpenAICompatibleLLM", extra="openai", package="no-such-sdk")
    assert isinstance(info.value.__cause__, ImportError)  # the original reason stays attached
    with pytest.raises(ImportError, match=r"needs no_such_sdk: "):  # the module's top name by default
        require("no_such_sdk.sub", needed_by="x", extra="cli")


def test_the_examples_run():
    assert doctest.testmod(extras, raise_on_error=False).failed == 0
