"""Every public name of ``bounds`` has a numpydoc docstring: Parameters (naming every parameter), Returns,
Raises, Examples; theorem functions also state their citation and provenance flag."""
import inspect
import re

import pytest

import bounds
from numeric._generated.metadata import THEOREMS

OWNER = {f: tid for tid, meta in THEOREMS.items() for f in meta["public"]}


def sections(doc: str) -> dict[str, str]:
    parts = re.split(r"\n([A-Z][a-z]+)\n-{3,}\n", "\n" + doc)
    return dict(zip(parts[1::2], parts[2::2]))


def documented_parameters(text: str) -> set[str]:
    names = set()
    for line in text.splitlines():
        if line and not line[0].isspace() and " : " in line + " ":
            head = line.split(" : ")[0]
            names |= {n.strip().lstrip("*") for n in head.split(",")}
    return names


@pytest.mark.parametrize("name", bounds.__all__)
def test_numpydoc(name):
    obj = getattr(bounds, name)
    doc = inspect.getdoc(obj) or ""
    found = sections(doc)
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        signature = None
    params = [p.name for p in signature.parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name != "self"] if signature else []
    required = {"Examples"}
    if params:
        required.add("Parameters")
    if not inspect.isclass(obj):
        required |= {"Returns", "Raises"} if params else {"Returns"}
    missing = required - set(found)
    assert not missing, f"{name}: missing numpydoc sections {sorted(missing)}"
    if params:
        undocumented = set(params) - documented_parameters(found["Parameters"])
        assert not undocumented, f"{name}: parameters not documented: {sorted(undocumented)}"
    assert ">>>" in found["Examples"], f"{name}: Examples without a doctest"
    if name in OWNER:
        meta = THEOREMS[OWNER[name]]
        assert meta["provenance"] in doc, f"{name}: provenance flag *{meta['provenance']}* not stated"
        author = next(w for w in re.split(r"[ ,&;():]", meta["citation"]) if w[:1].isupper())
        assert author in doc, f"{name}: citation ({meta['citation']}) not stated"
