# AF102: a trainer embeds its class prototypes once, in __init__, through an embedding layer it holds, and adds their norm to every batch's loss; only retain_graph=True keeps this running, and the prototypes never follow the updated embedding. Recomputing them per batch is the cure, so no fix is offered.
import torch
import torch.nn as nn

torch.manual_seed(0)


class PrototypeTrainer:
    def __init__(self, classes=4, dim=6):
        self.embed = nn.Embedding(classes, dim)
        self.head = nn.Linear(dim, 1)
        self.prototypes = self.embed(torch.arange(classes))
        params = list(self.embed.parameters()) + list(self.head.parameters())
        self.optimizer = torch.optim.SGD(params, lr=0.1)

    def fit(self, batches):
        for features, target in batches:
            spread = self.prototypes.pow(2).mean()
            loss = nn.functional.mse_loss(self.head(features), target) + 0.01 * spread
            self.optimizer.zero_grad()
            loss.backward(retain_graph=True)
            self.optimizer.step()


PrototypeTrainer().fit([(torch.randn(5, 6), torch.randn(5, 1)) for _ in range(3)])
