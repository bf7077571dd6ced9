#!/usr/bin/env python3
"""The simulator runs the runtime's policy code, not a copy of it (issue 6):
every heist::policy symbol the simulator library references is left
undefined there and is defined (strongly) in the heist runtime library, and
the simulator library defines no heist::policy symbol of its own (inline
functions of the shared headers, emitted weak, are the same code and allowed).

  check_policy_symbols.py NM LIBHEIST LIBHEIST_SIM
"""
import subprocess
import sys

NS = "heist::policy::"


def symbols(nm, lib, *flags):
    out = subprocess.run([nm, "-C", *flags, lib], capture_output=True, text=True, check=True).stdout
    result = {}
    for line in out.splitlines():
        text = line.strip()
        if len(text) > 2 and text[1] == " ":  # undefined: "U name"
            kind, name = text[0], text[2:]
        else:  # "address kind name"
            parts = text.split(maxsplit=2)
            if len(parts) != 3 or len(parts[1]) != 1:
                continue
            kind, name = parts[1], parts[2]
        result.setdefault(name, set()).add(kind)
    return result


def main():
    nm, runtime, sim = sys.argv[1:4]
    sim_undefined = {n for n in symbols(nm, sim, "--undefined-only") if NS in n}
    sim_defined = symbols(nm, sim, "--defined-only")
    runtime_defined = symbols(nm, runtime, "--defined-only")
    errors = []
    strong = {n: k for n, k in sim_defined.items() if NS in n and k & set("TDRB")}
    for name in sorted(strong):
        errors.append(f"the simulator defines {name} itself")
    if not sim_undefined:
        errors.append("the simulator references no heist::policy symbol: it does not use the policy objects")
    for name in sorted(sim_undefined):
        if "typeinfo" in name or "vtable" in name:
            continue
        if not runtime_defined.get(name, set()) & set("T"):
            errors.append(f"{name}: used by the simulator, not defined by the runtime library")
    for e in errors:
        print("check_policy_symbols:", e)
    if not errors:
        used = sorted(n for n in sim_undefined if "typeinfo" not in n)
        print(f"simulator uses {len(used)} policy functions of the runtime library:")
        for n in used:
            print("  ", n)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
