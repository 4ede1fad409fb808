"""A progress bar for a long command, drawn on a terminal only: a pipe or a file gets the
command's own output and nothing else. rich is imported only when a bar is drawn."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO


@contextmanager
def terminal_bar(stream: TextIO, label: str, extra: str | None = None) -> Iterator[Any]:
    """A transient rich ``Progress`` on ``stream`` (the label, the bar, done of total,
    ``extra`` as a rich text column such as ``"{task.fields[rate]} events/s"``, the time
    left), or None when ``stream`` is no terminal."""
    if not stream.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    middle = (TextColumn(extra),) if extra else ()
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), *middle, TimeRemainingColumn())
    with Progress(*columns, console=Console(file=stream), transient=True) as bar:
        yield bar
