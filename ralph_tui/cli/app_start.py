"""``ralph-tui [DOC ...] [--query TEXT] [--mode qa|task] [settings flags]``: what the app
opens with, read from its command line before the app starts.

The app takes the flags ``run`` takes, from the same builder (``add_run_arguments``): the
settings' flags hold for every run started from the app, over the environment and ``.env``
as they do for ``run``; the documents, ``--query``, ``--mode`` and ``--decompose`` fill the
run form. The flags of ``run`` that only a headless run has a use for (``--json``,
``--estimate``, ``--resume``, …) are refused in one line. Whatever is wrong — a bad value, a
missing document, an out dir that cannot be written — is said in one line with exit 2
before the app starts, in the words ``run`` uses.

A subcommand is the first word only: a document named like one is given as ``./run``, or
after ``--``.
"""

from __future__ import annotations

import argparse
import difflib
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ralph_tui.cli.app import ABOUT, OneLineParser
from ralph_tui.cli.arguments.request import DECOMPOSE_NEEDS_TASK, add_request_arguments
from ralph_tui.cli.commands import COMMANDS, DEMO, DEMO_HELP
from ralph_tui.version import __version__

if TYPE_CHECKING:
    from ralph_tui.config import Settings

FORM_MODE_HELP = "qa, the form's; task with --decompose"
"""What the app's run form holds when ``--mode`` does not say, as ``--help`` says it."""
HELP_OPTIONS = frozenset({"-h", "--help", "--version"})
"""What is answered without reading the settings (the top help stays light)."""

DESCRIPTION = f"""{ABOUT}

With no command, ralph-tui opens the terminal app. The documents, --query, --mode and
--decompose fill its run form (a run starts when you start it: ctrl+r). Every settings flag
of `ralph-tui run` (--out DIR, --maxIters N, --provider offline, ...) holds for the runs
started from the app and for what it shows, over the environment and .env; see
`ralph-tui run --help` for them all. A document named like a command is given as ./NAME
or after --."""


@dataclass(frozen=True)
class FormFill:
    """What the command line puts in the app's run form (``None``: the form's own)."""

    mode: str | None = None
    query: str | None = None
    docs: tuple[Path, ...] = ()
    decompose: bool = False
    provider: str | None = None
    """Given as a flag: shown as given (without keys the form would show offline)."""


@dataclass(frozen=True)
class AppStart:
    """The app's settings, the command line's flags over the environment and ``.env``, and
    what its run form opens with."""

    settings: Settings
    form: FormFill = field(default_factory=FormFill)


def app_parser(*, every_run_flag: bool) -> argparse.ArgumentParser:
    """The app's parser: the documents, ``--version``, and ``run``'s arguments — every one
    (``every_run_flag``: to parse; those the app has no use for hidden from its help), or
    the request's alone (to answer ``--help`` without loading the settings)."""
    parser = OneLineParser(
        prog="ralph-tui",
        usage=app_usage(),
        epilog=commands_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_app_arguments(parser)
    if every_run_flag:
        from ralph_tui.cli.arguments.run import add_run_arguments

        add_run_arguments(parser, default_mode=FORM_MODE_HELP)
        for action in run_only_actions(parser):
            action.help = argparse.SUPPRESS
    else:
        add_request_arguments(parser, default_mode=FORM_MODE_HELP)
    parser.description = DESCRIPTION  # (run's arguments set run's)
    return parser


def add_app_arguments(parser: argparse.ArgumentParser) -> None:
    """What the app takes beside ``run``'s arguments: ``--version`` and the documents."""
    parser.add_argument("--version", action="version", version=f"ralph-tui {__version__}")
    parser.add_argument(
        "docs",
        nargs="*",
        type=Path,
        metavar="DOC",
        help="a document for the run form (a file, a folder of them or a glob, as --doc)",
    )


def app_usage() -> str:
    """The two ways to call ``ralph-tui``: the app, or a command (the settings' flags folded
    into one, as the reference shows them)."""
    light = argparse.ArgumentParser(prog="ralph-tui")
    add_app_arguments(light)
    add_request_arguments(light)
    usage = " ".join(light.format_usage().removeprefix("usage: ").split())
    app = textwrap.fill(f"{usage} [settings flags]", 80, subsequent_indent=" " * 17)
    return f"{app}\n       ralph-tui COMMAND [--help] ..."


def commands_text() -> str:
    """The subcommands and their one-line help, as ``--help`` ends."""
    helps = {DEMO: DEMO_HELP, **{name: command.help for name, command in COMMANDS.items()}}
    width = max(map(len, helps)) + 2
    lines = [
        textwrap.fill(
            text, 88, initial_indent=f"  {name:<{width}}", subsequent_indent=" " * (width + 2)
        )
        for name, text in helps.items()
    ]
    return "commands (ralph-tui COMMAND --help says more):\n" + "\n".join(lines)


def app_start(argv: list[str]) -> AppStart | int:
    """What the app opens with, or the exit code of what was printed instead (the help,
    the version, or the one line saying what is wrong)."""
    before_dashes = argv[: argv.index("--")] if "--" in argv else argv
    if HELP_OPTIONS & set(before_dashes):
        try:
            app_parser(every_run_flag=False).parse_known_args(argv)
        except SystemExit as exc:
            return int(exc.code or 0)
    parser = app_parser(every_run_flag=True)
    try:
        args = parser.parse_intermixed_args(argv)
        refuse_run_only_flags(parser, args)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        return AppStart(settings_of(args), form_fill(args))
    except Exception as exc:  # as run_cli: every error that ends the command, one line
        from ralph_tui.cli.reporting import report_error
        from ralph_tui.errors import as_ralph_error

        return report_error(as_ralph_error(exc), as_json=False)


def run_only_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The flags of ``run`` the app has no use for: neither a setting nor one of the
    request's arguments, which the form takes."""
    from ralph_tui.config import setting_specs

    taken = request_dests() | set(setting_specs()) | {"help", "version"}
    return [a for a in parser._actions if a.option_strings and a.dest not in taken]


def refuse_run_only_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse, in one line, a flag of ``run`` the app has no use for."""
    for action in run_only_actions(parser):
        if getattr(args, action.dest, action.default) != action.default:
            flag = max(action.option_strings, key=len)
            parser.error(f"{flag} is for `ralph-tui run` (a run on the command line), not the app")


def request_dests() -> set[str]:
    """The names the request's arguments are stored under (what the form takes)."""
    scratch = argparse.ArgumentParser(add_help=False)
    add_request_arguments(scratch)
    return {action.dest for action in scratch._actions}


def settings_of(args: argparse.Namespace) -> Settings:
    """The flags over the environment and ``.env``, checked as ``run`` checks them (the out
    dir must be writable)."""
    from ralph_tui.cli.settings_flags import settings_from_args

    return settings_from_args(args)


def form_fill(args: argparse.Namespace) -> FormFill:
    """The run form's fields the command line gives; a document that names nothing is
    refused as ``run`` refuses it."""
    docs = (*args.docs, *(args.doc or []))
    for doc in docs:
        check_document(doc)
    mode = args.mode or ("task" if args.decompose else None)
    if args.decompose and mode != "task":
        from ralph_tui.documents import InputError

        raise InputError(DECOMPOSE_NEEDS_TASK)
    return FormFill(
        mode=mode,
        query=args.query,
        docs=docs,
        decompose=args.decompose,
        provider=getattr(args, "provider", None),
    )


def check_document(doc: Path) -> None:
    """Refuse ``doc`` as a run would: a file that does not exist, a folder with no
    document, a glob that matches nothing; a missing one named like a subcommand is
    pointed to it (it was taken as a document for not being the first word)."""
    if doc.is_file():
        return  # the common case, and nothing to check: the document readers load later
    from ralph_tui.documents import InputError
    from ralph_tui.documents.inputs import MISSING_HINT, gather, missing_document

    try:
        found = gather([doc])
        missing = next((path for path, _name in found.files if not path.exists()), None)
        if missing is not None:
            raise missing_document(missing)
    except InputError as exc:
        command = difflib.get_close_matches(str(doc), [DEMO, *COMMANDS], n=1)
        if command:
            raise InputError(
                exc.message,
                hint=f"{exc.hint or MISSING_HINT}; or did you mean the command "
                f"`ralph-tui {command[0]}`?",
            ) from None
        raise
