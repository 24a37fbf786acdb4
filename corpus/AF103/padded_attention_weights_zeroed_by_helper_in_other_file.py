# AF103: a pooling layer zeroes the attention weights of padded keys with a helper from another file of the project, which writes into the softmax output in place; softmax saved that output for backward.
import torch
import torch.nn as nn

from af103_helpers import masking


class MaskedPooling(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.query = nn.Linear(width, width)

    def forward(self, tokens, pad_mask):
        scores = self.query(tokens) @ tokens.transpose(1, 2)
        weights = torch.softmax(scores, dim=-1)
        masking.zero_padded_(weights, pad_mask)
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
