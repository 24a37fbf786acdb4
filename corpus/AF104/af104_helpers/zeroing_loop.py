"""A base class that owns the epoch loop and clears the gradients before every batch."""


class ZeroingLoop:
    def __init__(self, batches):
        self.batches = batches

    def fit(self, epochs):
        for _ in range(epochs):
            for batch in self.batches:
                self.opt.zero_grad()
                self.train_step(batch)
