"""docs/configuration.md: generated from the config models, complete and never stale."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from toolpool.config import Config
from toolpool.config_reference import SECTIONS, Section, main, render

DOC = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def _models_under(model: type[BaseModel]) -> set[type[BaseModel]]:
    """``model`` and every model its fields hold, at any depth."""
    found = {model}
    for field in model.model_fields.values():
        for part in _parts(field.annotation):
            if isinstance(part, type) and issubclass(part, BaseModel) and part not in found:
                found |= _models_under(part)
    return found


def _parts(annotation: object) -> list[object]:
    args = typing.get_args(annotation)
    return [annotation] if not args else [part for arg in args for part in _parts(arg)]


def _section_text(doc: str, heading: str) -> str:
    start = doc.index(f"## `{heading}`")
    end = doc.find("\n## ", start + 1)
    return doc[start : end if end != -1 else len(doc)]


def test_the_reference_in_docs_is_what_the_generator_makes_now() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), "run: python -m toolpool.config_reference --write"


def test_every_key_of_every_config_model_has_a_row_in_its_section() -> None:
    doc = DOC.read_text(encoding="utf-8")
    sections = {section.model: section for section in SECTIONS}
    assert _models_under(Config) <= set(sections), "a config model has no section"
    for model in _models_under(Config):
        section = sections[model]
        text = _section_text(doc, section.heading)
        for name, field in model.model_fields.items():
            if name not in section.not_keys:
                assert f"| `{name}` |" in text, f"{section.heading} {name}"
                assert field.description and " ".join(field.description.split()) in text


def test_the_keys_the_issue_found_missing_are_documented_with_their_defaults() -> None:
    server = _section_text(DOC.read_text(encoding="utf-8"), "[servers.ALIAS]")
    for key, default in [
        ("connect_timeout_s", "`30.0`"),
        ("health_interval_s", "`15.0`"),
        ("breaker_failures", "`5`"),
        ("breaker_cooldown_s", "`30.0`"),
        ("enabled", "`true`"),
    ]:
        row = next(line for line in server.splitlines() if line.startswith(f"| `{key}` |"))
        assert f"| {default} |" in row


def test_a_key_without_a_docstring_stops_the_generator() -> None:
    class Bare(BaseModel):
        model_config = ConfigDict(use_attribute_docstrings=True)
        documented: int = 1
        """Has a meaning."""
        silent: int = 2

    with pytest.raises(ValueError, match=r"Bare\.silent has no docstring"):
        render([Section("[bare]", Bare)])


def test_check_fails_on_a_stale_reference_and_write_fixes_it(tmp_path: Path) -> None:
    doc = tmp_path / "configuration.md"
    doc.write_text("# old\n", encoding="utf-8")
    assert main(["--check", "--doc", str(doc)]) == 1
    assert main(["--write", "--doc", str(doc)]) == 0
    assert main(["--check", "--doc", str(doc)]) == 0
