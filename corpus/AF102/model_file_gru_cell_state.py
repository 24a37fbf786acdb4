# AF102: a model file on its own: forward reads the recurrent state kept on the module and stores the new one, computed by the GRU cell, for the next call. The training loop lives in another file; each of its backward() calls frees the graph the state still points into.
# autofix-test: verdict=inconclusive unsafe-fixes
import torch
import torch.nn as nn


class StreamingDenoiser(nn.Module):
    def __init__(self, channels=3, width=6, batch=4):
        super().__init__()
        self.cell = nn.GRUCell(channels, width)
        self.head = nn.Linear(width, channels)
        self.hidden = torch.zeros(batch, width)

    def forward(self, frame):
        self.hidden = self.cell(frame, self.hidden)
        return self.head(self.hidden)


if __name__ == "__main__":
    print(StreamingDenoiser()(torch.randn(4, 3)).shape)
