"""``python -m ampbounds_cli``: the ``ampbounds`` command line."""
from .cli import main

raise SystemExit(main())
