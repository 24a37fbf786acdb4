# OK: the ignite update function runs a fresh forward pass for each of its two losses, so each backward frees only its own graph.
import torch
import torch.nn as nn

try:
    from ignite.engine import Engine
except ImportError:  # runs without ignite: its engine calls the update function once per batch
    class Engine:
        def __init__(self, process_function):
            self._process = process_function

        def run(self, data, max_epochs=1):
            for _ in range(max_epochs):
                for batch in data:
                    self._process(self, batch)


def make_trainer(model, optimizer):
    def update_fn(engine, batch):
        clean, noisy, targets = batch
        optimizer.zero_grad()
        clean_loss = nn.functional.mse_loss(model(clean), targets)
        clean_loss.backward()
        noisy_loss = nn.functional.mse_loss(model(noisy), targets)
        noisy_loss.backward()
        optimizer.step()
        return clean_loss.item() + noisy_loss.item()

    return Engine(update_fn)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 2))
    trainer = make_trainer(net, torch.optim.SGD(net.parameters(), lr=0.05))
    data = []
    for _ in range(3):
        x = torch.randn(8, 5)
        data.append((x, x + 0.1 * torch.randn(8, 5), torch.randn(8, 2)))
    trainer.run(data, max_epochs=2)
    print("done")
