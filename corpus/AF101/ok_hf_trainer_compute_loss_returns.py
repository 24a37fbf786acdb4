# ok: the same Trainer subclass only computes and returns the loss; the Trainer back-propagates it once.
import torch
import torch.nn as nn

try:
    from transformers import Trainer
except ImportError:  # runs without transformers: its training_step back-propagates what compute_loss returns
    class Trainer:
        def __init__(self, model):
            self.model = model


class WeightedTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        logits = model(inputs["features"])
        loss = nn.functional.cross_entropy(logits, inputs["labels"], weight=torch.tensor([1.0, 3.0]))
        return (loss, logits) if return_outputs else loss


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Linear(6, 2)
    trainer = WeightedTrainer.__new__(WeightedTrainer)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    for step in range(3):
        batch = {"features": torch.randn(8, 6), "labels": torch.randint(0, 2, (8,))}
        loss = trainer.compute_loss(net, batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, loss.item())
