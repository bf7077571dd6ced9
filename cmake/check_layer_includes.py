#!/usr/bin/env python3
"""No upward #include between heist's layers (ctest: layers.no_upward_include).

Every `#include "X/..."` in src/<layer>/ must name the layer itself, a layer
it may use (cmake/layers.txt), or the public headers (heist/); a folder of
src/ that is not a layer is reported too.

  check_layer_includes.py LAYERS_TXT SRC_DIR
  check_layer_includes.py --self-test LAYERS_TXT   (shows the check can fail)
"""
import pathlib
import re
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from heist_layers import read_layers  # noqa: E402

INCLUDE = re.compile(r'^\s*#\s*include\s*"([A-Za-z0-9_]+)/[^"]*"', re.MULTILINE)


def violations(layers_txt, src):
    order, allowed = read_layers(layers_txt)
    found = []
    for layer in order:
        folder = pathlib.Path(src) / layer
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h", ".c"):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for m in INCLUDE.finditer(text):
                target = m.group(1)
                if target == "heist" or target == layer or target in allowed[layer]:
                    continue
                if target not in allowed:
                    if (pathlib.Path(src) / target).is_dir():
                        line = text.count("\n", 0, m.start()) + 1
                        found.append(f"{path}:{line}: includes {target}/, a folder of src/ that is not a layer "
                                     "(add it to cmake/layers.txt)")
                    continue  # otherwise not heist's (a system or third-party folder)
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{path}:{line}: layer {layer} includes {target}/, which it does not link "
                             f"(it may use: {', '.join(sorted(allowed[layer])) or 'nothing'})")
    return found


def self_test(layers_txt):
    order, _ = read_layers(layers_txt)
    low, high = order[0], order[-1]
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp)
        (src / low).mkdir()
        (src / high).mkdir()
        (src / high / "up.cpp").write_text(f'#include "{low}/ok.hpp"\n')
        if violations(layers_txt, src):
            print(f"self-test: a downward include ({high} -> {low}) was reported")
            return 1
        (src / low / "bad.cpp").write_text(f'#include "{high}/up.hpp"\n')
        found = violations(layers_txt, src)
        if len(found) != 1 or f"layer {low} includes {high}/" not in found[0]:
            print(f"self-test: an upward include ({low} -> {high}) was not reported: {found}")
            return 1
    print(f"self-test: the check reports an upward include ({low} -> {high}) and accepts a downward one")
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--self-test":
        return self_test(sys.argv[2])
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    found = violations(sys.argv[1], sys.argv[2])
    for v in found:
        print(v)
    if found:
        print(f"{len(found)} upward include(s): move the code down, or pass it through an interface "
              "of the lower layer (as sched/process_balancer.hpp does for rma)")
        return 1
    print("no upward include")
    return 0


if __name__ == "__main__":
    sys.exit(main())
