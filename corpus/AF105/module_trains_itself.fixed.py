# AF105: a model with its own fit() loop (calling self(*inputs)) sums the loss tensor for the report.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Ranker(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Bilinear(4, 4, 1)

    def forward(self, query, doc):
        return self.score(query, doc).squeeze(1)

    def fit(self, batches, lr=0.01):
        opt = torch.optim.Adam(self.parameters(), lr=lr)
        running_loss = 0.0
        for inputs, target in batches:
            loss = nn.functional.binary_cross_entropy_with_logits(self(*inputs), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            running_loss += loss.item()
        return float(running_loss) / len(batches)


data = [((torch.randn(6, 4), torch.randn(6, 4)), torch.rand(6)) for _ in range(3)]
print(Ranker().fit(data))
