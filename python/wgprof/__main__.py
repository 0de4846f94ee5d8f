"""python -m wgprof ...: the wgprof command."""

import sys

from ._cli import main

sys.exit(main())
