# ok: a dataset transform rescales each sample in place before any model sees it; no forward, no autograd.
import torch
import torch.nn as nn


def rescale_(sample: torch.Tensor, factor: float) -> torch.Tensor:
    sample.mul_(factor)
    return sample


class Samples(torch.utils.data.Dataset):
    def __init__(self, n: int):
        self.data = torch.randn(n, 4)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return rescale_(self.data[i].clone(), 0.5)


torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in torch.utils.data.DataLoader(Samples(8), batch_size=4):
    loss = model(batch).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
