#!/usr/bin/env python3
"""No upward call between heist's layers (ctest: layers.no_upward_symbol).

For each layer's static archive (libheist_<layer>.a), every symbol it leaves
undefined that one of heist's layer archives defines must be defined by the
layer itself or by a layer it may use (cmake/layers.txt). A symbol only a
higher (or unrelated) layer defines is an upward call, which a link of that
layer alone could not resolve. Symbols no layer defines (the C++ library,
Boost, MPI, hwloc) are not heist's and are skipped.

Reviewed exceptions: cmake/layer_symbol_exceptions.txt, one per line,
`<layer> <demangled symbol prefix> -- <reason>`; an exception that no longer
matches anything is an error too, so the list cannot go stale.

  check_layer_symbols.py NM LAYERS_TXT EXCEPTIONS layer=ARCHIVE...
  check_layer_symbols.py --self-test NM CXX AR LAYERS_TXT   (shows the check can fail)
"""
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from heist_layers import read_layers  # noqa: E402

DEFINED_KINDS = set("TDBRVWuiGS")


def archive_symbols(nm, archive):
    """(defined, undefined): sets of mangled names."""
    out = subprocess.run([nm, "--format=posix", archive], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2 or line.endswith(":"):  # "member.o:" headers
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in DEFINED_KINDS:
            defined.add(name)
    return defined, undefined - defined


def demangle(names):
    if not names:
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
    return dict(zip(names, out.splitlines()))


def read_exceptions(path):
    result = []
    if not path or not pathlib.Path(path).exists():
        return result
    for number, raw in enumerate(pathlib.Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, sep, reason = line.partition(" -- ")
        fields = head.split(None, 1)
        if not sep or not reason.strip() or len(fields) != 2:
            raise ValueError(f"{path}:{number}: expected '<layer> <symbol prefix> -- <reason>'")
        result.append((fields[0], fields[1].strip(), f"{path}:{number}"))
    return result


def violations(nm, layers_txt, exceptions_path, archives):
    order, allowed = read_layers(layers_txt)
    symbols = {layer: archive_symbols(nm, archive) for layer, archive in archives.items()}
    definers = {}
    for layer, (defined, _) in symbols.items():
        for name in defined:
            definers.setdefault(name, set()).add(layer)
    exceptions = read_exceptions(exceptions_path)
    used = set()
    found = []
    for layer in order:
        if layer not in symbols:
            continue
        upward = {}
        for name in symbols[layer][1]:
            owners = definers.get(name)
            if owners and not owners & allowed[layer]:
                upward[name] = owners
        names = demangle(sorted(upward))
        for name in sorted(upward):
            text = names[name]
            match = next((e for e in exceptions if e[0] == layer and text.startswith(e[1])), None)
            if match:
                used.add(match)
                continue
            found.append(f"layer {layer} calls {text}, defined only in {', '.join(sorted(upward[name]))}")
    for e in exceptions:
        if e not in used:
            found.append(f"{e[2]}: exception '{e[0]} {e[1]}' matches no upward call any more: remove it")
    return found


def self_test(nm, cxx, ar, layers_txt):
    order, _ = read_layers(layers_txt)
    low, high = order[0], order[-1]
    with tempfile.TemporaryDirectory() as tmp:
        d = pathlib.Path(tmp)
        sources = {
            high: f"void heist_{low}_fn();\nvoid heist_{high}_fn() {{ heist_{low}_fn(); }}\n",
            low: f"void heist_{low}_fn() {{}}\n",
        }
        archives = {}

        def build(layer):
            (d / f"{layer}.cpp").write_text(sources[layer])
            subprocess.run([cxx, "-c", str(d / f"{layer}.cpp"), "-o", str(d / f"{layer}.o")], check=True)
            (d / f"lib{layer}.a").unlink(missing_ok=True)
            subprocess.run([ar, "qc", str(d / f"lib{layer}.a"), str(d / f"{layer}.o")], check=True)
            archives[layer] = str(d / f"lib{layer}.a")

        build(low)
        build(high)
        if violations(nm, layers_txt, None, archives):
            print(f"self-test: a downward call ({high} -> {low}) was reported")
            return 1
        sources[low] = f"void heist_{high}_fn();\nvoid heist_{low}_fn() {{ heist_{high}_fn(); }}\n"
        sources[high] = f"void heist_{high}_fn() {{}}\n"
        build(low)
        build(high)
        found = violations(nm, layers_txt, None, archives)
        if len(found) != 1 or f"layer {low} calls heist_{high}_fn()" not in found[0]:
            print(f"self-test: an upward call ({low} -> {high}) was not reported: {found}")
            return 1
        stale = d / "exceptions.txt"
        stale.write_text(f"{low} heist_nothing( -- a stale entry\n")
        if not any("matches no upward call" in v for v in violations(nm, layers_txt, str(stale), archives)):
            print("self-test: a stale exception was not reported")
            return 1
    print(f"self-test: the check reports an upward call ({low} -> {high}) and a stale exception, "
          "and accepts a downward call")
    return 0


def main():
    args = sys.argv[1:]
    if args and args[0] == "--self-test":
        return self_test(*args[1:5])
    if len(args) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    nm, layers_txt, exceptions = args[:3]
    archives = dict(a.split("=", 1) for a in args[3:])
    found = violations(nm, layers_txt, exceptions, archives)
    for v in found:
        print(v)
    if found:
        print(f"{len(found)} problem(s): move the code down, pass it through an interface of the lower "
              "layer, or (reviewed) add an exception with its reason")
        return 1
    print(f"no upward call among {len(archives)} layer archives")
    return 0


if __name__ == "__main__":
    sys.exit(main())
