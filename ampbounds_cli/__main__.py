"""``python -m ampbounds_cli``: the ``ampbounds`` command line."""
from .main import main

raise SystemExit(main())
