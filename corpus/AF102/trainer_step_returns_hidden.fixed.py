# AF102: the trainer's step runs the recurrent model from the hidden state it is given, back-propagates, and returns the new hidden state; fit() hands that state, graph and all, to the next step.
import torch
import torch.nn as nn


class SequenceTrainer:
    def __init__(self):
        self.rnn = nn.GRU(3, 8, batch_first=True)
        self.head = nn.Linear(8, 1)
        params = list(self.rnn.parameters()) + list(self.head.parameters())
        self.optimizer = torch.optim.Adam(params, lr=0.01)

    def train_step(self, chunk, target, hidden):
        self.optimizer.zero_grad()
        out, hidden = self.rnn(chunk, hidden)
        loss = nn.functional.mse_loss(self.head(out[:, -1]), target)
        loss.backward()
        self.optimizer.step()
        return hidden

    def fit(self, chunks):
        hidden = torch.zeros(1, 4, 8)
        for chunk, target in chunks:
            hidden = hidden.detach()
            hidden = self.train_step(chunk, target, hidden)
        return hidden


torch.manual_seed(0)
trainer = SequenceTrainer()
trainer.fit([(torch.randn(4, 5, 3), torch.randn(4, 1)) for _ in range(3)])
