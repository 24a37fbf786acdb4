"""Cut fixed-length windows out of each row of a batch, at per-row start offsets."""
import torch


def slice_segments(x, starts, size):
    # ``starts`` only says where each window begins: it is an index, no part of the values.
    out = torch.zeros_like(x[:, :size])
    for row in range(x.size(0)):
        first = starts[row]
        last = first + size
        out[row] = x[row, first:last]
    return out


def weighted_segments(x, starts, weights, size):
    # ``weights`` scales each window: its graph is part of what comes back.
    out = torch.zeros_like(x[:, :size])
    for row in range(x.size(0)):
        first = starts[row]
        out[row] = x[row, first:first + size] * weights[row]
    return out
