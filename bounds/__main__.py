"""``python -m bounds``: the ``ampbounds`` command line.

The command line lives in the package above the library (``ampbounds_cli``: it dispatches to ``bounds`` and
to ``proofs_checks``).  This file is the one place where ``bounds`` names it, and only when run as a script;
``import bounds`` never loads it.
"""
if __name__ == "__main__":
    from ampbounds_cli import main

    raise SystemExit(main())
