"""`python -m toolpool.demo`: see `toolpool.demo._cli`."""

from toolpool.demo._cli import main

raise SystemExit(main())
