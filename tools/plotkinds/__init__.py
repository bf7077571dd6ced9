"""The kinds of tools/plot.py, by experiment family; plot.py maps each `kind` to one."""
