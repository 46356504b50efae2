"""`python -m ui [--host H] [--port P] [--backend B] [--store DIR]`: start the web UI (as `paperchat ui`)."""

import sys

from ui.main import main

sys.exit(main(["ui", *sys.argv[1:]]))
