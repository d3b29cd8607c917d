"""Progress of a long command (train, measure): one line now and then with what is done, the time
spent and an estimate of what is left, on stderr; plain lines, so a log file reads as well as a
terminal does."""
import sys
import time


class Progress:
    """Progress("label", total).step() after each unit of work; a line at most every `every` seconds
    and one at the end (none at all when label is None). The estimate assumes the units left cost
    what the ones done did."""

    def __init__(self, label, total, every=30.0, stream=None, clock=time.monotonic):
        self.label, self.total, self.every = label, total, every
        self.stream, self.clock = stream or sys.stderr, clock
        self.done, self.t0 = 0, clock()
        self.last = self.t0

    def step(self, units=1):
        if self.label is None:
            return
        self.done += units
        now = self.clock()
        if self.done >= self.total or now - self.last >= self.every:
            self.last = now
            print(self.line(now), file=self.stream, flush=True)

    def line(self, now):
        spent = now - self.t0
        left = spent / self.done * (self.total - self.done) if self.done else float("nan")
        return f"  [{self.label}] {self.done}/{self.total}, {clock_text(spent)} spent, about {clock_text(left)} left"


def clock_text(seconds):
    """12 s, 3 min 05 s, 1 h 02 min."""
    if seconds != seconds:
        return "?"
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
