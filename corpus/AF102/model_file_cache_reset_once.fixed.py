# AF102: a model file on its own: forward builds its running state only the first time (when it is still None) and afterwards keeps reading and replacing it on every call. The training loop lives in another file; each backward() frees the graph the kept state points into.
# autofix-test: verdict=inconclusive unsafe-fixes
import torch
import torch.nn as nn


class RunningContext(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.update_gate = nn.Linear(2 * width, width)
        self.context = None

    def forward(self, x):
        if self.context is not None:
            self.context = self.context.detach()
        if self.context is None:
            self.context = torch.zeros(x.size(0), x.size(1))
        self.context = torch.sigmoid(self.update_gate(torch.cat([x, self.context], dim=-1)))
        return x + self.context


if __name__ == "__main__":
    print(RunningContext()(torch.randn(3, 8)).shape)
