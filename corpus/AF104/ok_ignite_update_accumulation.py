# OK: an ignite update function accumulating gradients over engine.state.iteration and zeroing after the guarded step.
import torch
import torch.nn as nn

try:
    from ignite.engine import Engine
except ImportError:  # runs without ignite: its loop calls the update function once per batch
    class _State:
        iteration = 0

    class Engine:
        def __init__(self, process_function):
            self._process = process_function
            self.state = _State()

        def run(self, data, max_epochs=1):
            for _ in range(max_epochs):
                for batch in data:
                    self.state.iteration += 1
                    self._process(self, batch)

torch.manual_seed(0)
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
accumulation_steps = 2


def update_fn(engine, batch):
    x, y = batch
    loss = nn.functional.mse_loss(model(x), y) / accumulation_steps
    loss.backward()
    if engine.state.iteration % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
    print(engine.state.iteration, loss.item())


trainer = Engine(update_fn)
trainer.run([(torch.randn(3, 4), torch.randn(3, 2)) for _ in range(4)])
