"""`toolpool run`: one prompt to a real model, with the pool's tools behind a Lead."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from toolpool.cli._common import (
    DEFAULT_CONFIG,
    AsJson,
    ConfigPath,
    actor,
    app,
    clip,
    err,
    fail,
    load,
    out,
    print_json,
    run,
    secret_key,
    telemetry_for,
)

__all__ = ["run_agent"]

# provider -> the environment variable its key comes from
KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


@app.command("run")
def run_agent(
    prompt: Annotated[str, typer.Argument(help="What to ask the Lead.")],
    model: Annotated[
        str,
        typer.Option(
            "--model",
            "-m",
            help="PROVIDER:MODEL, e.g. openai:gpt-4.1 or anthropic:claude-sonnet-4-5. The key comes "
            "from OPENAI_API_KEY or ANTHROPIC_API_KEY.",
        ),
    ],
    base_url: Annotated[
        str | None,
        typer.Option(
            "--base-url",
            help="An OpenAI- or Anthropic-compatible endpoint (vLLM, llama.cpp, Ollama: "
            "http://127.0.0.1:11434/v1). With it, a missing key is sent as 'local'.",
        ),
    ] = None,
    allow: Annotated[
        list[str] | None,
        typer.Option("--allow", help="Action globs the Lead's ticket allows (repeatable; default all)."),
    ] = None,
    max_turns: Annotated[
        int, typer.Option("--max-turns", min=1, max=100, help="Model requests at most.")
    ] = 16,
    timeout: Annotated[float, typer.Option("--timeout", min=0.1, help="Seconds per model request.")] = 60.0,
    retries: Annotated[
        int, typer.Option("--retries", min=0, max=10, help="Retries of a model request (429, 5xx, network).")
    ] = 3,
    config: ConfigPath = DEFAULT_CONFIG,
    as_json: AsJson = False,
) -> None:
    """Ask a real model: a Lead with the pool's enabled tools (connect_mcp / disconnect_mcp) answers
    PROMPT. Exits 1 if the model gives no answer within --max-turns."""
    from toolpool.agent import AnswerEntry, CallEntry, Entry, Lead, RequestEntry
    from toolpool.agent.models import AnthropicModel, OpenAIChatModel
    from toolpool.cli._walkthrough import requests_summary
    from toolpool.pool import Pool
    from toolpool.tickets import Ticket

    provider, _, name = model.partition(":")
    if provider not in KEY_VARIABLES or not name:
        fail(
            f"--model must be PROVIDER:MODEL with PROVIDER one of {', '.join(KEY_VARIABLES)} (got {model!r})"
        )
    key = os.environ.get(KEY_VARIABLES[provider], "")
    if not key:
        if base_url is None:
            fail(
                f"{KEY_VARIABLES[provider]} is not set: export your {provider} API key (or pass --base-url for a local server)"
            )
        key = "local"
    loaded = load(config)
    ticket = Ticket.allow(*(allow or ["*"]), principal=actor())

    def show(entry: Entry) -> None:
        if as_json:
            return
        if isinstance(entry, RequestEntry):
            err.print(f"[dim]{requests_summary(entry)}[/]", highlight=False)
        elif isinstance(entry, CallEntry):
            mark = "[green]✓[/]" if entry.code == "ok" else "[yellow]✗[/]"
            err.print(f"  {mark} {entry.name}: [bold]{entry.code}[/]  {clip(entry.text)}", highlight=False)
        elif isinstance(entry, AnswerEntry) and not entry.completed:
            err.print(f"[red]{entry.agent} reached the turn limit[/]", highlight=False)

    telemetry = telemetry_for(loaded)

    async def ask() -> tuple[str, bool, list[dict[str, object]]]:
        chosen = (
            OpenAIChatModel(name, api_key=key, base_url=base_url, timeout_s=timeout, max_retries=retries)
            if provider == "openai"
            else AnthropicModel(name, api_key=key, base_url=base_url, timeout_s=timeout, max_retries=retries)
        )
        try:
            async with Pool(loaded, secret_key=secret_key(loaded), telemetry=telemetry.telemetry) as pool:
                lead = Lead(
                    pool, chosen, ticket=ticket, principal=actor(), max_turns=max_turns, on_entry=show
                )
                result = await lead.run(prompt)
                return result.answer, result.completed, result.transcript.to_list()
        finally:
            await chosen.aclose()

    try:
        answer, completed, transcript = run(ask)
    finally:
        telemetry.close()
    if as_json:
        print_json({"answer": answer, "completed": completed, "transcript": transcript})
    else:
        out.print(answer, highlight=False, markup=False)
    if not completed:
        fail(f"no answer within {max_turns} model requests")
