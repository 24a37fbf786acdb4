"""A base class that owns the epoch loop; subclasses say what one batch does."""


class BatchLoop:
    def __init__(self, batches):
        self.batches = batches
        self.history = []

    def train_step(self, batch):
        raise NotImplementedError

    def fit(self, epochs):
        for _ in range(epochs):
            for batch in self.batches:
                self.history.append(self.train_step(batch))
