# AF101: an ignite update function built inside a factory back-propagates each term of a loss dict on its own; every term comes from the same forward pass, so the second backward finds the graph freed.
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
        features, targets = batch
        prediction = model(features)
        terms = {
            "fit": nn.functional.mse_loss(prediction, targets),
            "sparsity": prediction.abs().mean(),
        }
        optimizer.zero_grad()
        for name, term in terms.items():
            term.backward()
        optimizer.step()
        return {name: term.item() for name, term in terms.items()}

    return Engine(update_fn)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 2))
    trainer = make_trainer(net, torch.optim.SGD(net.parameters(), lr=0.05))
    data = [(torch.randn(8, 5), torch.randn(8, 2)) for _ in range(3)]
    trainer.run(data, max_epochs=2)
    print("done")
