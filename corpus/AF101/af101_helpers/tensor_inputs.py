"""Turn plain Python rows into tensors, and squash values with a torch function chosen by a flag."""
import torch


def rows_to_tensor(rows, use_cuda=False):
    # The constructor is picked by the device flag; either one just copies the numbers.
    Tensor = torch.cuda.FloatTensor if use_cuda else torch.FloatTensor
    return Tensor(rows)


def one_hot_rows(index, width):
    # A grid of zeros with a one written at each row's index.
    out = torch.zeros(len(index), width)
    out[torch.arange(len(index)), index] = 1.0
    return out


def squash(x, bounded=True):
    # Either function keeps the graph of ``x``: what comes back is computed from it.
    act = torch.tanh if bounded else torch.sigmoid
    return act(x)
