"""``python -m toolpool``: the same as the ``toolpool`` command."""

from toolpool.cli import main

main()
