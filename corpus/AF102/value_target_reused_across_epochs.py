# AF102 (no fix): the TD target is computed once per update from the value network, before the epochs over the batch, and each epoch's loss goes through it undetached: the first epoch's backward() frees the graph of `self.value(states)` it holds, and the second epoch fails.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.value = nn.Linear(3, 1)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.1)

    def update(self, states, rewards, epochs=3):
        td_target = rewards + 0.9 * self.value(states)
        for epoch in range(epochs):
            loss = F.smooth_l1_loss(self.value(states), td_target)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            print(epoch, round(loss.item(), 4))


Critic().update(torch.randn(3, 3), torch.randn(3, 1))
