"""Subcommands of the ``symq`` command line beyond the core ones in :mod:`symq.cli`.
Every module here defines ``register(subparsers)``, which adds one subcommand with
``set_defaults(handler=run)``, where ``run(args) -> int`` prints the output and returns the exit
status. :mod:`symq.cli` discovers the modules, so a feature adds its command without editing it.
Helpers shared by the commands live in :mod:`symq.commands.common`; no command module imports
:mod:`symq.cli`.
"""
