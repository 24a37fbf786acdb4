# AF104: the fit loop lives in a base class in another file (af104_helpers/batch_loop.py); this subclass's train_step back-propagates and steps self.opt without ever zeroing its gradients, so they pile up across steps.
# autofix-test: unsafe-fixes
import torch
import torch.nn as nn

from af104_helpers.batch_loop import BatchLoop


class ClassifierTrainer(BatchLoop):
    def __init__(self, batches):
        super().__init__(batches)
        self.model = nn.Linear(6, 3)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-2)

    def train_step(self, batch):
        features, labels = batch
        loss = nn.functional.cross_entropy(self.model(features), labels)
        loss.backward()
        self.opt.step()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    data = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(4)]
    ClassifierTrainer(data).fit(epochs=2)
