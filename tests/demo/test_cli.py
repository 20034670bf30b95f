"""`python -m toolpool.demo` explains itself and refuses bad usage before starting anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolpool.demo import DEMO_KINDS, STDIO_ONLY_KINDS
from toolpool.demo._cli import main


def test_help_names_every_kind_transport_and_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    shown = capsys.readouterr().out
    for word in (*DEMO_KINDS, "stdio", "http", "sse", "/mcp", "/messages/", "--fd", "--tools", "--page-size"):
        assert word in shown
    assert "[stdio only]" in shown


def test_only_stubborn_is_stdio_only() -> None:
    assert DEMO_KINDS == ("alpha", "beta", "paged", "faulty", "poisoned", "slow", "stubborn")
    assert STDIO_ONLY_KINDS == ("stubborn",)


@pytest.mark.parametrize(
    ("argv", "complaint"),
    [
        (["stubborn", "--transport", "http"], "stubborn runs over stdio only"),
        (["alpha", "--port", "9000"], "apply to the http and sse transports only"),
        (["alpha", "--transport", "http", "--fd", "3", "--port", "1"], "--fd cannot be combined"),
        (["alpha", "--tools", "5"], "paged kind only"),
        (["paged", "--page-size", "0"], "--page-size at least 1"),
        (["omega"], "invalid choice"),
    ],
)
def test_bad_usage_exits_2_with_one_clear_complaint(
    argv: list[str], complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert complaint in capsys.readouterr().err


def test_fd_must_be_a_listening_socket(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with (tmp_path / "not-a-socket").open("w") as file:
        fd = file.fileno()
        with pytest.raises(SystemExit) as exited:
            main(["alpha", "--transport", "sse", "--fd", str(fd)])
    assert exited.value.code == 2
    assert f"--fd {fd}: " in capsys.readouterr().err
