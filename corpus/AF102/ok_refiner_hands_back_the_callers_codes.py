# AF102 negative: a refinement loop calls a model from another file several times per batch, unpacking three values from it. The model's forward returns tuples of different lengths depending on its flags; the three-element return hands back, in third place, the latent code the caller passed in, or a first guess it computed under torch.no_grad(). So `codes` carries no graph from one refinement step into the next, although each step back-propagates; the estimate is re-detached at the top of every step.
import torch

from af102_helpers.refiner import Refiner


class Trainer:
    def __init__(self, device="cpu"):
        self.net = Refiner().to(device)
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.01)

    def refine(self, x, target, steps=3):
        estimate, codes = None, None
        for step in range(steps):
            if step > 0:
                estimate = estimate.detach()
            estimate, delta, codes = self.net.forward(x, estimate=estimate, codes=codes, return_codes=True, return_delta=True)
            loss = (estimate - target).pow(2).mean() + 0.01 * delta.abs().mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return estimate


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer()
    for _ in range(2):
        trainer.refine(torch.randn(5, 8), torch.randn(5, 8))
