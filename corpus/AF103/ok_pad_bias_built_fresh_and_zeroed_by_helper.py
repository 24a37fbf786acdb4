# ok: the helper from another file writes in place into a bias the forward builds fresh with torch.ones; nothing saved that tensor before the write, so backward is unaffected.
import torch
import torch.nn as nn

from af103_helpers.masking import zero_padded_


class MaskedPooling(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.query = nn.Linear(width, width)

    def forward(self, tokens, pad_mask):
        keep = torch.ones(tokens.size(0), tokens.size(1), tokens.size(1))
        zero_padded_(keep, pad_mask)
        scores = self.query(tokens) @ tokens.transpose(1, 2)
        weights = torch.softmax(scores, dim=-1) * keep
        return weights @ tokens


if __name__ == "__main__":
    torch.manual_seed(0)
    pool = MaskedPooling(6)
    optimizer = torch.optim.SGD(pool.parameters(), lr=0.1)
    pad_mask = torch.zeros(2, 5, dtype=torch.bool)
    pad_mask[:, -1] = True
    for step in range(3):
        optimizer.zero_grad()
        loss = pool(torch.randn(2, 5, 6), pad_mask).pow(2).mean()
        loss.backward()
        optimizer.step()
        print(step, loss.item())
