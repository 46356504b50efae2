"""The `paperchat` program: the assistant's commands plus `ui`, which serves the web UI.

`paperchat ui [--host H] [--port P] [--backend B] [--store DIR]` (and `python -m ui [...]`) build the
settings once from the environment and these options, the assistant from them, then serve the app.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from assistant import cli
from assistant.face import backend_names
from assistant.settings import Settings

__all__ = ["main", "build_parser", "parse_args", "settings_for", "cmd_ui"]


def add_ui_command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("ui", parents=[common], help="start the web UI", description="Start the web UI.")
    p.add_argument("--host", help="address to bind (default 127.0.0.1; env PAPERCHAT_UI__HOST)")
    p.add_argument("--port", type=int, help="port (default 7860; env PAPERCHAT_UI__PORT)")
    p.add_argument("--backend", help=f"language-model backend: {', '.join(backend_names())}")
    p.set_defaults(func=cmd_ui)


def build_parser() -> argparse.ArgumentParser:
    """The `paperchat` parser, with the `ui` command."""
    return cli.build_parser(more=add_ui_command)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The options of `paperchat ui` (`argv` without the command name)."""
    return build_parser().parse_args(["ui", *(sys.argv[1:] if argv is None else argv)])


def settings_for(args: argparse.Namespace, settings: Settings | None = None) -> Settings:
    """`settings` (default: from the environment) with the options of `paperchat ui` applied."""
    settings = cli.settings_from_args(args, settings)
    if args.host:
        settings.ui.host = args.host
    if args.port:
        settings.ui.port = args.port
    return settings


def cmd_ui(args: argparse.Namespace) -> int:
    from assistant.factory import build_assistant
    from ui.app import login, run_ui  # Gradio loads only for this command

    settings = settings_for(args)
    assistant = build_assistant(settings, backend=args.backend)
    run_ui(assistant, settings.ui.host, settings.ui.port, login(settings.ui))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`paperchat COMMAND ...`: the assistant's commands and `ui`."""
    return cli.main(argv, build_parser())


if __name__ == "__main__":
    sys.exit(main())
