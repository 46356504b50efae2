"""The `paperchat` program: the assistant's commands plus the faces: `ui`, `serve` and `mcp`.

`paperchat ui [--host H] [--port P] [--backend B] [--store DIR]` (and `python -m ui [...]`) build the
settings once from the environment and these options, the assistant from them, then serve the app, with
the OpenAI-compatible `/v1` beside it. `paperchat serve` serves `/v1` alone, and `paperchat mcp
[--transport stdio|http]` the MCP server; they take the same options.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TypeAlias

from assistant import cli
from assistant.face import backend_names
from assistant.settings import Settings

__all__ = ["main", "build_parser", "parse_args", "settings_for", "cmd_ui", "cmd_serve", "cmd_mcp"]

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _face_parser(
    sub: Subparsers, common: argparse.ArgumentParser, name: str, text: str, host_port: tuple[str, str]
) -> argparse.ArgumentParser:
    env, port = host_port
    p = sub.add_parser(name, parents=[common], help=text, description=text[0].upper() + text[1:] + ".")
    p.add_argument("--host", help=f"address to bind (default 127.0.0.1; env PAPERCHAT_{env}__HOST)")
    p.add_argument("--port", type=int, help=f"port (default {port})")
    p.add_argument("--backend", help=f"language-model backend: {', '.join(backend_names())}")
    return p


def add_face_commands(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    """`ui`, `serve` and `mcp`: the faces of the assistant for people and for other tools."""
    _face_parser(
        sub,
        common,
        "ui",
        "start the web UI (with the OpenAI-compatible /v1 beside it)",
        ("UI", "7860; env PAPERCHAT_UI__PORT"),
    ).set_defaults(func=cmd_ui)
    _face_parser(
        sub,
        common,
        "serve",
        "serve the OpenAI-compatible /v1/chat/completions and /v1/models",
        ("SERVE", "8800; env PAPERCHAT_SERVE__PORT"),
    ).set_defaults(func=cmd_serve)
    p = _face_parser(
        sub,
        common,
        "mcp",
        "serve the MCP server (tools for agents and editors)",
        ("SERVE", "8801 for http; env PAPERCHAT_SERVE__MCP_PORT"),
    )
    p.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (default, for desktop agents) or streamable HTTP at /mcp",
    )
    p.set_defaults(func=cmd_mcp)


def build_parser() -> argparse.ArgumentParser:
    """The `paperchat` parser, with the `ui`, `serve` and `mcp` commands."""
    return cli.build_parser(more=add_face_commands)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The options of `paperchat ui` (`argv` without the command name)."""
    return build_parser().parse_args(["ui", *(sys.argv[1:] if argv is None else argv)])


_ADDRESS = {"ui": ("ui", "port"), "serve": ("serve", "port"), "mcp": ("serve", "mcp_port")}


def settings_for(args: argparse.Namespace, settings: Settings | None = None) -> Settings:
    """`settings` (default: from the environment) with the options of `paperchat ui|serve|mcp` applied:
    `--host` and `--port` set the UI's address for `ui`, the `serve` section's for `serve` and `mcp`."""
    settings = cli.settings_from_args(args, settings)
    section, port_field = _ADDRESS[getattr(args, "command", "ui")]
    address = getattr(settings, section)
    if args.host:
        address.host = args.host
    if args.port:
        setattr(address, port_field, args.port)
    return settings


def cmd_ui(args: argparse.Namespace) -> int:
    from assistant.factory import build_assistant
    from ui.app import login, run_ui  # Gradio loads only for this command

    settings = settings_for(args)
    assistant = build_assistant(settings, backend=args.backend)
    run_ui(assistant, settings.ui.host, settings.ui.port, login(settings.ui))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from assistant.factory import build_assistant
    from ui.openai_api import run_serve

    settings = settings_for(args)
    run_serve(build_assistant(settings, backend=args.backend))
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from assistant.factory import build_assistant
    from ui.mcp_server import run_mcp

    settings = settings_for(args)
    run_mcp(build_assistant(settings, backend=args.backend), args.transport)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`paperchat COMMAND ...`: the assistant's commands and `ui`."""
    return cli.main(argv, build_parser())


if __name__ == "__main__":
    sys.exit(main())
