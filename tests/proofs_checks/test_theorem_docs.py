"""docs/theorems.md is generated from the records and the check registry; the committed file must be fresh."""
from proofs_checks import theorem_docs


def test_theorem_reference_is_fresh():
    text = theorem_docs.render()
    committed = theorem_docs.OUT.read_text(encoding="utf-8") if theorem_docs.OUT.exists() else ""
    assert committed == text, "docs/theorems.md is stale: run python -m proofs_checks.theorem_docs"


def test_reference_covers_every_theorem_and_its_checks():
    from numeric._generated.metadata import THEOREMS
    from proofs_checks.catalogue import load

    text = theorem_docs.OUT.read_text(encoding="utf-8")
    for tid, meta in THEOREMS.items():
        section = text.split(f"\n## {tid}\n", 1)[1].split("\n## ", 1)[0]
        assert meta["citation"] in section and meta["statement"] in section and "```latex" in section
        assert all(f"`bounds.{f}`" in section for f in meta["public"])
        assert all(f"`{c.name}`" in section for c in load() if tid in c.theorems)
