"""`python -m ui [--host H] [--port P] [--backend B] [--store DIR]`: start the web UI."""

import sys

from ui.app import main

sys.exit(main())
