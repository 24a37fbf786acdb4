# ok: `memory` is started from the stored states at the top of each minibatch, and used and written back only under the same `self.recurrent` setting (also within `self.recurrent and i < last`), which nothing in the update changes; nothing is carried from one minibatch to the next.
import torch
import torch.nn as nn

torch.manual_seed(0)


class RecurrentUpdate:
    def __init__(self, recurrent):
        self.recurrent = recurrent
        self.cell = nn.GRUCell(3, 5)
        self.head = nn.Linear(5, 1)
        self.optimizer = torch.optim.Adam([*self.cell.parameters(), *self.head.parameters()], lr=1e-3)
        self.stored = torch.zeros(20, 5)
        self.observations = torch.randn(20, 3)

    def update(self, recurrence=2):
        for start in (0, 4, 8):
            batch_loss = 0
            if self.recurrent:
                memory = self.stored[start:start + 4].clone()
            for i in range(recurrence):
                x = self.observations[start + i:start + i + 4]
                if self.recurrent:
                    memory = self.cell(x, memory)
                    value = self.head(memory)
                else:
                    value = self.head(torch.zeros(4, 5)) + x.sum()
                batch_loss = batch_loss + value.pow(2).mean()
                if self.recurrent and i < recurrence - 1:
                    self.stored[start + i + 1:start + i + 5] = memory.detach()
            self.optimizer.zero_grad()
            batch_loss.backward()
            self.optimizer.step()
        return float(batch_loss)


print(round(RecurrentUpdate(True).update(), 4), round(RecurrentUpdate(False).update(), 4))
