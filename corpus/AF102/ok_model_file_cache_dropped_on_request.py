# OK: a model file on its own: the block keeps a streaming cache between calls only when its caller asks for one (keep_cache=True, as a decoder does under no_grad); any other call drops it, and the outer model hands its inner cell a fresh state whenever it starts a stream. Whether state is kept is the caller's choice, not a carried graph.
import torch
import torch.nn as nn


class GatedCell(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mix = nn.Linear(2 * width, width)
        self.state = None

    def forward(self, x):
        previous = self.state if self.state is not None else torch.zeros_like(x)
        self.state = torch.tanh(self.mix(torch.cat([x, previous], dim=-1)))
        return self.state


class StreamingBlock(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.inner = GatedCell(width)
        self.proj = nn.Linear(width, width)
        self.window = None

    def forward(self, x, keep_cache=False):
        if keep_cache:
            if self.window is None:
                self.inner.state = torch.zeros(x.size(0), x.size(-1))
                self.window = x.new_zeros(x.shape)
            smoothed = 0.5 * (self.window + x)
            self.window = x
        else:
            self.window = None
            self.inner.state = None
            smoothed = x
        return self.proj(self.inner(smoothed))


if __name__ == "__main__":
    block = StreamingBlock()
    print(block(torch.randn(2, 8)).shape)
