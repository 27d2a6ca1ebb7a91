"""`python -m astra_cli` runs the `astra` command."""

from astra_cli import main

main()
