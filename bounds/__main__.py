"""``python -m bounds``: the ``ampbounds`` command line."""
if __name__ == "__main__":
    from bounds.cli import main

    raise SystemExit(main())
