"""The user's files, as the front ends read and write them: one reader (regular files only, a size
cap, what the file is named in every error), one writer (an existing file refused without force, never
through a link, a temporary file renamed into place), a run's report directory, the state directory
and the transcript of the commands podplan runs. The front ends reach the machine only through here
and the other use cases; each function imports its runner when it is called, so a command that
touches no file loads none of them.
"""

from __future__ import annotations

from pathlib import Path


def read_text(path: str | Path, *, what: str, missing: str = "") -> str:
    """The file's text; a FIFO, a device, a file too big or not UTF-8 is one PodplanError line
    (`missing`: what to say of a file that is not there)."""
    from runners.files import read_text as read

    return read(path, what=what, missing=missing)


def write_text(path: str | Path, text: str, *, force: bool = False, private: bool = False) -> None:
    """Write `text` to `path` whole or not at all; an existing file (or a link) is refused unless `force`."""
    from runners.files import write_text as write

    write(path, text, force=force, private=private)


def make_run_dir(path: str | Path, *, reuse: bool = False) -> Path:
    """A run's report directory made now (or an empty one the user made); one that holds files is
    refused unless `reuse`, a link always."""
    from runners.files import make_run_dir as make

    return make(path, reuse=reuse)


def state_dir() -> Path:
    """Where podplan keeps its state ($XDG_STATE_HOME/podplan)."""
    from runners.dirs import state_dir as where

    return where()


def use_transcript(path: str) -> None:
    """Append a record of every command podplan runs on this machine to `path`."""
    from runners import transcript

    transcript.use(path)
