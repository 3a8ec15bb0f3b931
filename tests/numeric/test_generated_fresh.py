"""The committed kernels in numeric/_generated/ must be exactly what the records generate now."""
from pathlib import Path

from numeric import generate


def test_generated_files_are_fresh():
    stale = [name for name, text in generate.rendered().items()
             if not (generate.OUT_DIR / name).exists() or (generate.OUT_DIR / name).read_text() != text]
    assert not stale, f"stale generated files {stale}: run python -m numeric.generate"


def test_check_mode_reports_stale(tmp_path, monkeypatch):
    monkeypatch.setattr(generate, "OUT_DIR", Path(tmp_path))
    assert generate.main(["--check"]) == 1  # nothing generated there yet: stale
    assert generate.main([]) == 0
    assert generate.main(["--check"]) == 0
    (Path(tmp_path) / "subsampling.py").write_text("# edited by hand\n")
    assert generate.main(["--check"]) == 1


def test_every_generated_kernel_has_a_budget_and_a_raw_twin():
    from numeric._generated.metadata import THEOREMS

    for tid, meta in THEOREMS.items():
        for name, out in meta["outputs"].items():
            module, _, function = out["kernel"].partition(":")
            mod = __import__(module, fromlist=[function])
            assert hasattr(mod, function) and hasattr(mod, function + "_raw"), (tid, name)
            if module.startswith("numeric._generated"):  # hand-written kernels may use running error bounds
                assert out["budget_ulps"] is not None and out["budget_ulps"] >= 1, (tid, name)
