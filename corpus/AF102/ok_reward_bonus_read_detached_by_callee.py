# OK: the curiosity bonus is a graph tensor from another model, carried across steps, but the only function that reads it (the agent's loss) takes it as `bonus.detach()`: its graph never reaches the loss that is back-propagated.
import torch
import torch.nn as nn


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.policy = nn.Linear(4, 2)

    def calc_loss(self, states, rewards, bonus=None):
        if bonus is not None:
            rewards = rewards + bonus.detach().mean().item()
        log_probs = torch.log_softmax(self.policy(states), -1)[:, 0]
        return -(log_probs * rewards).mean()


def train(use_curiosity, steps=8):
    torch.manual_seed(0)
    agent = Agent()
    curiosity = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(agent.parameters(), lr=0.1)
    bonus = torch.zeros(1)
    for step in range(steps):
        states = torch.randn(5, 4)
        if use_curiosity and step % 2 == 0:
            bonus = curiosity(states).pow(2).mean()
        loss = agent.calc_loss(states, torch.randn(5), bonus)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    train(True)
    print("done")
