import sys

from incremind_daemon.cli import main

sys.exit(main())
