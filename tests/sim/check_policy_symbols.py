#!/usr/bin/env python3
"""The simulator runs the runtime's policy code, not a copy of it:
every heist::policy symbol the simulator library references is left
undefined there and is defined (strongly) in the heist runtime library, and
the simulator library defines no heist::policy symbol of its own (inline
functions of the shared headers, emitted weak, are the same code and allowed).

The scheduling drivers (src/policy/*_driver) are checked by name: each out-of-line
entry point of SpawnDriver and SearchDriver below (SpawnDriver::decide is
inline, for the spawn path's sake; it calls paced()) must be referenced by the simulator
library and by the runtime's scheduler objects (an object of libheist other
than the driver's own), so neither side makes those decisions with code of
its own.

  check_policy_symbols.py NM LIBHEIST_SIM RUNTIME_ARCHIVE...

The runtime is given as its layers' static archives (libheist_policy.a,
libheist_sched.a, libheist_rma.a): symbols and members are pooled.
"""
import subprocess
import sys

NS = "heist::policy::"

# Driver entry points both sides must call (matched as substrings of the
# demangled names).
DRIVER_CALLS = [
    "heist::policy::SpawnDriver::SpawnDriver(",
    "heist::policy::SpawnDriver::paced(",
    "heist::policy::SearchDriver::SearchDriver(",
    "heist::policy::SearchDriver::next(",
    "heist::policy::SearchDriver::take(",
    "heist::policy::SearchDriver::on_result(",
    "heist::policy::SearchDriver::failed(",
    "heist::policy::SearchDriver::backoff_limits(",
    "heist::policy::SearchDriver::next_rank(",
]


def undefined_by_member(nm, lib):
    """Undefined symbols of each object of a static library: {member: set(names)}."""
    out = subprocess.run([nm, "-C", "--undefined-only", lib], capture_output=True, text=True, check=True).stdout
    members, current = {}, None
    for line in out.splitlines():
        text = line.strip()
        if text.endswith(".o:"):
            current = text[:-1]
            members[current] = set()
        elif current is not None and text.startswith("U "):
            members[current].add(text[2:])
    return members


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
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    nm, sim, runtime = sys.argv[1], sys.argv[2], sys.argv[3:]
    sim_undefined = {n for n in symbols(nm, sim, "--undefined-only") if NS in n}
    sim_defined = symbols(nm, sim, "--defined-only")
    runtime_defined = {}
    for lib in runtime:
        for name, kinds in symbols(nm, lib, "--defined-only").items():
            runtime_defined.setdefault(name, set()).update(kinds)
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
    runtime_members = {}
    for lib in runtime:
        runtime_members.update({f"{lib}:{m}": names for m, names in undefined_by_member(nm, lib).items()})
    runtime_refs = set().union(*[names for member, names in runtime_members.items() if "_driver." not in member])
    for call in DRIVER_CALLS:
        if not any(call in n for n in sim_undefined):
            errors.append(f"the simulator does not call {call[:-1]}")
        if not any(call in n for n in runtime_refs):
            errors.append(f"the runtime's scheduler does not call {call[:-1]}")
        if not any(call in n and "T" in k for n, k in runtime_defined.items()):
            errors.append(f"{call[:-1]} is not defined by the runtime library")
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
