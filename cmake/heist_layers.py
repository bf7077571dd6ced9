"""Reads cmake/layers.txt: the layers of src/, lowest first, and what each may use."""
import pathlib


def read_layers(path):
    """Returns (order, allowed): the layer names in file order, and for each
    layer the set of layers it may use (its links, transitively)."""
    direct = {}
    for number, raw in enumerate(pathlib.Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if ":" not in line:
            raise ValueError(f"{path}:{number}: expected 'layer: layers it links'")
        name, deps = line.split(":", 1)
        name = name.strip()
        for dep in deps.split():
            if dep not in direct:
                raise ValueError(f"{path}:{number}: {name} links {dep}, which is not a layer above this line")
        direct[name] = deps.split()
    allowed = {}
    for name in direct:
        seen, todo = set(), list(direct[name])
        while todo:
            dep = todo.pop()
            if dep not in seen:
                seen.add(dep)
                todo.extend(direct[dep])
        allowed[name] = seen
    return list(direct), allowed
