"""``python -m toolmend`` and the ``toolmend`` console script: the command line, run by the
same code as the Rust binary."""

from __future__ import annotations

import signal
import sys

from toolmend._toolmend import main as _main


def main() -> None:
    """Run the command line with ``sys.argv`` and exit with its status."""
    # The command runs in native code that never checks for Python's KeyboardInterrupt; let
    # Ctrl-C end the process the way it ends the Rust binary.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.exit(_main(["toolmend", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
