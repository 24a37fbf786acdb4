# AF102 positive: the same refinement loop, but the model (from another file) adjusts the latent code with a layer on every call and hands the adjusted code back in third place. `codes` now carries this step's graph into the next call, whose backward goes through it after this step's backward freed it.
import torch

from af102_helpers.refiner import AdjustingRefiner


class Trainer:
    def __init__(self, device="cpu"):
        self.net = AdjustingRefiner().to(device)
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
