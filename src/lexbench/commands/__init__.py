"""Sub-commands of the `lexbench` command, one module per benchmark or tool.

Every module here that defines `register(cli)` is picked up by `lexbench.cli` on start-up,
so adding a benchmark's commands never means editing a shared list.
"""
