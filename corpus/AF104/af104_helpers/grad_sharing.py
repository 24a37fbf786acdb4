"""Helpers of an A3C-style worker: make the local model's gradient tensors the shared model's."""


def hand_over_once(local, shared):
    """Point the shared parameters' gradients at the local ones, unless that was done already."""
    for mine, theirs in zip(local.parameters(), shared.parameters()):
        if theirs.grad is not None:
            return
        theirs._grad = mine.grad


def hand_over_each_step(local, shared):
    """Point the shared parameters' gradients at the local ones, on every call."""
    for mine, theirs in zip(local.parameters(), shared.parameters()):
        theirs._grad = mine.grad


class SharedGradWorker:
    """A worker that trains a local copy (``self.local``, set by the subclass) of a shared model."""

    def __init__(self, shared):
        self.shared = shared

    def push_grads(self):
        for theirs, mine in zip(self.shared.parameters(), self.local.parameters()):
            if theirs.grad is not None:
                return
            theirs._grad = mine.grad
