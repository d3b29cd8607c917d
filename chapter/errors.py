"""The build's two kinds of failure, each one line on stderr (chapter/build.py main)."""


class BuildError(Exception):
    """The project's own sources are at fault (a template, static/, the page's own checks): exit 1."""


class UsageError(Exception):
    """A bad command line: one line, `error: ...`, exit code 2 (as experiments/cli.py's, which
    this build cannot import: it needs torch)."""
