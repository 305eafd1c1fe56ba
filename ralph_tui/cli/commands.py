"""Every subcommand, registered by name, and loaded only when it is the one chosen.

The command line must parse (and ``ralph-tui --help`` list the subcommands) without
importing what the subcommands run: the evals, batch, loop and retrieval stacks take most
of a second to import. So a subcommand is registered here as text: its one-line help, the
function that adds its arguments to its parser (imported when the subcommand is chosen,
its ``--help`` included: keep that module's imports light) and the function that runs it
(imported only on dispatch). A new subcommand is one more entry in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any


@dataclass(frozen=True)
class Subcommand:
    """A subcommand as the top-level parser knows it before choosing it.

    ``arguments`` and ``run`` are ``"module:function"``: the function that adds the
    subcommand's arguments to its (already created) parser, and ``run(args) -> exit code``.
    """

    help: str
    arguments: str
    run: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        _resolve(self.arguments)(parser)

    def runner(self) -> Callable[[argparse.Namespace], int]:
        run: Callable[[argparse.Namespace], int] = _resolve(self.run)
        return run


def _resolve(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(import_module(module), name)


DEMO = "demo"
"""The one subcommand ``ralph_tui.main`` runs itself: the app (or, ``--headless``, ``run``) on
the sample document."""
DEMO_HELP = "open the app and start a QA run on the sample document offline"

COMMANDS: dict[str, Subcommand] = {
    "run": Subcommand(
        "run a session headless",
        "ralph_tui.cli.arguments.run:add_run_arguments",
        "ralph_tui.cli.run:run_command",
    ),
    "sessions": Subcommand(
        "list, show or reindex past sessions",
        "ralph_tui.cli.arguments.sessions:add_sessions_arguments",
        "ralph_tui.cli.sessions:run_sessions",
    ),
    "report": Subcommand(
        "a session's answer with its evidence, as HTML, Markdown or JSON",
        "ralph_tui.cli.arguments.report:add_report_arguments",
        "ralph_tui.cli.report_command:run_report",
    ),
    "verify": Subcommand(
        "check that an evidence bundle's quotes still stand in their sources",
        "ralph_tui.cli.arguments.verify:add_verify_arguments",
        "ralph_tui.cli.verify:run_verify",
    ),
    "index": Subcommand(
        "build (or show) the retrieval index of a document",
        "ralph_tui.cli.arguments.retrieval:add_index_arguments",
        "ralph_tui.cli.retrieval:run_retrieval_command",
    ),
    "search": Subcommand(
        "search a document and print ranked passages with where they come from",
        "ralph_tui.cli.arguments.retrieval:add_search_arguments",
        "ralph_tui.cli.retrieval:run_retrieval_command",
    ),
    "external": Subcommand(
        "list, refresh or clear the external documentation cache",
        "ralph_tui.cli.arguments.external:add_external_arguments",
        "ralph_tui.cli.external:run_external",
    ),
    "eval": Subcommand(
        "measure how well a configuration answers a suite of questions",
        "ralph_tui.cli.arguments.evals:add_eval_arguments",
        "ralph_tui.cli.evals:run_eval_command",
    ),
    "optimize": Subcommand(
        "measure each configuration variant from the sessions and pick the next",
        "ralph_tui.cli.arguments.optimize:add_optimize_arguments",
        "ralph_tui.cli.optimize:run_optimize",
    ),
    "config": Subcommand(
        "show every setting's value and where it came from",
        "ralph_tui.cli.arguments.config:add_config_arguments",
        "ralph_tui.cli.config_command:run_config",
    ),
    "doctor": Subcommand(
        "check what works here: Python, the sandbox, keys, models, converters, out dir",
        "ralph_tui.cli.arguments.doctor:add_doctor_arguments",
        "ralph_tui.cli.doctor:run_doctor",
    ),
    "mcp": Subcommand(
        "serve documents and sessions to an MCP client (stdio, or --http)",
        "ralph_tui.cli.arguments.mcp:add_mcp_arguments",
        "ralph_tui.cli.mcp_command:run_mcp",
    ),
}
"""Each subcommand by name, in the order ``--help`` lists them (after ``demo``)."""
